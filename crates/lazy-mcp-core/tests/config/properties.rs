//! Property tests: nothing panics on any input; fingerprints are stable and
//! sensitive to every launch-relevant field.

use super::*;
use lazy_mcp_core::config::{fingerprint, normalize_json, Transport};
use lazy_mcp_core::vec_map::VecMap;
use proptest::prelude::*;

const PATHS: &[&str] = &[
    "/work/app/.vscode/mcp.json",
    "/work/app/.mcp.json",
    "/work/app/.github/mcp.json",
    "/work/app/opencode.jsonc",
    "/home/dev/.claude.json",
    "/home/dev/.config/Claude/claude_desktop_config.json",
];

fn json_value() -> impl Strategy<Value = serde_json::Value> {
    let leaf = prop_oneof![
        Just(serde_json::Value::Null),
        any::<bool>().prop_map(serde_json::Value::Bool),
        any::<i64>().prop_map(|n| serde_json::json!(n)),
        any::<f64>().prop_map(|n| serde_json::json!(n)),
        "[a-z${}:~/ -]{0,12}".prop_map(serde_json::Value::String),
        prop::sample::select(vec![
            "stdio",
            "http",
            "sse",
            "local",
            "remote",
            "command",
            "*",
            "${env:X}",
            "{file:x}",
            "${X:-d}",
            "https://x",
            "{env:X}",
            "${input:a}",
            "${workspaceFolder}",
        ])
        .prop_map(|s| serde_json::Value::String(s.to_string())),
    ];
    let keys = prop::sample::select(vec![
        "servers",
        "mcpServers",
        "mcp",
        "projects",
        "/work/app",
        "type",
        "command",
        "args",
        "env",
        "environment",
        "url",
        "headers",
        "tools",
        "timeout",
        "enabled",
        "disabled",
        "autoConnect",
        "cwd",
        "envFile",
        "inputs",
        "id",
        "request",
        "s",
        "t",
    ]);
    leaf.prop_recursive(5, 48, 6, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(serde_json::Value::Array),
            prop::collection::vec((keys.clone(), inner), 0..6).prop_map(|pairs| {
                serde_json::Value::Object(
                    pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect(),
                )
            }),
        ]
    })
}

fn stdio_transport() -> impl Strategy<Value = Transport> {
    (
        "[a-z]{1,6}",
        prop::collection::vec("[a-z0-9 =-]{0,6}", 0..4),
        prop::collection::btree_map("[A-Z]{1,4}", "[a-z0-9]{0,6}", 0..3),
        prop::option::of("[a-z/]{1,6}"),
        prop::option::of("[a-z/.]{1,6}"),
    )
        .prop_map(|(command, args, env, cwd, env_file)| Transport::Stdio {
            command,
            args,
            env: env.into_iter().collect(),
            cwd,
            env_file,
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn normalize_never_panics_on_arbitrary_json(
        values in prop::collection::vec(json_value(), 1..4),
        path_choice in prop::collection::vec(0..PATHS.len(), 4),
    ) {
        let files: Vec<(&str, Option<String>)> = values
            .iter()
            .zip(&path_choice)
            .map(|(value, index)| (PATHS[*index], Some(value.to_string())))
            .collect();
        let borrowed: Vec<(&str, Option<&str>)> =
            files.iter().map(|(p, c)| (*p, c.as_deref())).collect();
        let result = run(&[APP, "/work/other"], &borrowed);
        prop_assert_eq!(result.files.len(), files.len());
        for server in &result.servers {
            prop_assert_eq!(server.fingerprint.len(), 32);
        }
    }

    #[test]
    fn normalize_never_panics_on_arbitrary_text(
        bytes in prop::collection::vec(any::<u8>(), 0..200),
        text in "\\PC{0,80}",
        index in 0..PATHS.len(),
    ) {
        let lossy = String::from_utf8_lossy(&bytes).to_string();
        let result = run(&[APP], &[(PATHS[index], Some(&lossy)), (PATHS[(index + 1) % PATHS.len()], Some(&text))]);
        prop_assert_eq!(result.files.len(), 2);
        let _ = normalize_json(&lossy);
        let _ = normalize_json(&text);
    }

    #[test]
    fn normalize_never_panics_on_arbitrary_hosts_paths_and_platforms(
        home in "[/\\\\a-zC:. ]{0,8}",
        folders in prop::collection::vec("[/\\\\a-zC:. ]{0,8}", 0..3),
        platform in prop::sample::select(vec!["linux", "darwin", "win32", "", "WIN32", "sunos"]),
        env in prop::collection::btree_map(
            prop::sample::select(vec!["HOME", "XDG_CONFIG_HOME", "APPDATA", "COPILOT_HOME", "OPENCODE_CONFIG", "X"]),
            "[/\\\\a-z$ {}:]{0,8}",
            0..4,
        ),
        paths in prop::collection::vec("[/\\\\a-z.C:]{0,12}", 0..3),
        content in json_value(),
    ) {
        let discovery = DiscoveryInput {
            home,
            workspace_folders: folders,
            platform: platform.to_string(),
            env: env.into_iter().map(|(k, v)| (k.to_string(), v)).collect(),
            vscode_user_mcp_json: None,
            sources: None,
        };
        let mut files: Vec<FileInput> = lazy_mcp_core::config::discovery_plan(&discovery)
            .into_iter()
            .map(|candidate| FileInput {
                path: candidate.path,
                content: Some(content.to_string()),
                ..FileInput::default()
            })
            .collect();
        files.extend(paths.into_iter().map(|path| FileInput {
            path,
            content: Some(content.to_string()),
            ..FileInput::default()
        }));
        let input = lazy_mcp_core::config::NormalizeInput {
            real_paths: Default::default(),
            discovery,
            files,
            extra_files: VecMap::new(),
            unreadable_files: VecMap::new(),
        };
        let result = normalize(&input);
        let json = serde_json::to_string(&input).unwrap();
        let via_json: lazy_mcp_core::config::NormalizeResult =
            serde_json::from_str(&normalize_json(&json)).unwrap();
        prop_assert_eq!(result, via_json);
    }

    #[test]
    fn fingerprint_is_stable(transport in stdio_transport()) {
        prop_assert_eq!(fingerprint(&transport), fingerprint(&transport.clone()));
    }

    #[test]
    fn fingerprint_changes_with_any_launch_field(a in stdio_transport(), b in stdio_transport()) {
        prop_assert_eq!(a == b, fingerprint(&a) == fingerprint(&b));
    }

    #[test]
    fn fingerprint_of_a_normalized_server_ignores_name_and_position(
        name in "[a-z]{1,8}",
        blank_lines in 0usize..5,
        arg in "[a-z0-9]{0,8}",
    ) {
        let a = format!(r#"{{"servers": {{"{name}": {{"command": "run", "args": ["{arg}"]}}}}}}"#);
        let b = format!(
            "{}{{\"servers\": {{\"other\": {{\"command\": \"run\", \"args\": [\"{arg}\"]}}}}}}",
            "\n".repeat(blank_lines)
        );
        let c = format!(r#"{{"servers": {{"x": {{"command": "run", "args": ["{arg}-changed"]}}}}}}"#);
        let fa = run(&[APP], &[("/work/app/.vscode/mcp.json", Some(&a))]).servers[0].fingerprint.clone();
        let fb = run(&[APP], &[("/work/app/.mcp.json", Some(&b.replace("servers", "mcpServers")))]).servers[0].fingerprint.clone();
        let fc = run(&[APP], &[("/work/app/.vscode/mcp.json", Some(&c))]).servers[0].fingerprint.clone();
        prop_assert_eq!(&fa, &fb);
        prop_assert_ne!(&fa, &fc);
    }
}

#[test]
fn each_launch_field_changes_the_fingerprint() {
    let base = Transport::Stdio {
        command: "npx".into(),
        args: vec!["-y".into()],
        env: [("K".to_string(), "v".to_string())].into_iter().collect(),
        cwd: Some("/w".into()),
        env_file: Some("/w/.env".into()),
    };
    let Transport::Stdio {
        command,
        args,
        env,
        cwd,
        env_file,
    } = base.clone()
    else {
        unreachable!()
    };
    let variants = [
        Transport::Stdio {
            command: "node".into(),
            args: args.clone(),
            env: env.clone(),
            cwd: cwd.clone(),
            env_file: env_file.clone(),
        },
        Transport::Stdio {
            command: command.clone(),
            args: vec![],
            env: env.clone(),
            cwd: cwd.clone(),
            env_file: env_file.clone(),
        },
        Transport::Stdio {
            command: command.clone(),
            args: args.clone(),
            env: VecMap::new(),
            cwd: cwd.clone(),
            env_file: env_file.clone(),
        },
        Transport::Stdio {
            command: command.clone(),
            args: args.clone(),
            env: [("K".to_string(), "w".to_string())].into_iter().collect(),
            cwd: cwd.clone(),
            env_file: env_file.clone(),
        },
        Transport::Stdio {
            command: command.clone(),
            args: args.clone(),
            env: env.clone(),
            cwd: None,
            env_file: env_file.clone(),
        },
        Transport::Stdio {
            command,
            args,
            env,
            cwd,
            env_file: None,
        },
        Transport::Http {
            url: "https://x".into(),
            headers: VecMap::new(),
        },
    ];
    for variant in &variants {
        assert_ne!(fingerprint(&base), fingerprint(variant), "{variant:?}");
    }
    let http = Transport::Http {
        url: "https://x".into(),
        headers: VecMap::new(),
    };
    let sse = Transport::Sse {
        url: "https://x".into(),
        headers: VecMap::new(),
    };
    let with_header = Transport::Http {
        url: "https://x".into(),
        headers: [("A".to_string(), "b".to_string())].into_iter().collect(),
    };
    assert_ne!(fingerprint(&http), fingerprint(&sse));
    assert_ne!(fingerprint(&http), fingerprint(&with_header));
}
