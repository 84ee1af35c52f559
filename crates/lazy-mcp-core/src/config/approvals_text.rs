//! `approvals.json`'s text written by hand, byte for byte as
//! `serde_json::to_string_pretty` writes an [`ApprovalsFile`] (the test below
//! holds them equal): serde's pretty writer compiled for these types alone
//! was about 10 KB of the `.wasm` (bench/README.md "WASM size").

use super::project_approval::ApprovalsFile;

/// The file as `serde_json::to_string_pretty(file)` writes it.
pub(super) fn approvals_pretty(file: &ApprovalsFile) -> String {
    let mut out = String::from("{\n  \"version\": ");
    out.push_str(itoa::Buffer::new().format(file.version));
    out.push_str(",\n  \"projects\": ");
    open(&mut out, file.projects.is_empty());
    for (i, (project, approvals)) in file.projects.iter().enumerate() {
        key(&mut out, i, 2, project);
        out.push_str("{\n      \"servers\": ");
        open(&mut out, approvals.servers.is_empty());
        for (j, (server, approval)) in approvals.servers.iter().enumerate() {
            key(&mut out, j, 4, server);
            out.push_str("{\n          \"fingerprint\": ");
            string(&mut out, &approval.fingerprint);
            out.push_str("\n        }");
        }
        close(&mut out, approvals.servers.is_empty(), 3);
        out.push_str("\n    }");
    }
    close(&mut out, file.projects.is_empty(), 1);
    out.push_str("\n}");
    out
}

/// `{` of a map (`{}` whole when empty: serde writes no line break in it).
fn open(out: &mut String, empty: bool) {
    out.push_str(if empty { "{}" } else { "{" });
}

/// `}` of a non-empty map at `depth` (two spaces a level).
fn close(out: &mut String, empty: bool, depth: usize) {
    if !empty {
        out.push('\n');
        indent(out, depth);
        out.push('}');
    }
}

/// The `index`th key of a map whose members sit at `depth` levels, then `: `.
fn key(out: &mut String, index: usize, depth: usize, name: &str) {
    out.push_str(if index == 0 { "\n" } else { ",\n" });
    indent(out, depth);
    string(out, name);
    out.push_str(": ");
}

fn indent(out: &mut String, depth: usize) {
    for _ in 0..depth {
        out.push_str("  ");
    }
}

/// A JSON string escaped as serde_json escapes it.
fn string(out: &mut String, text: &str) {
    out.push_str(&serde_json::to_string(text).unwrap_or_default());
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::project_approval::{ProjectApprovals, ServerApproval};

    fn file(projects: &[(&str, &[(&str, &str)])]) -> ApprovalsFile {
        let mut file = ApprovalsFile {
            version: 1,
            ..ApprovalsFile::default()
        };
        for (project, servers) in projects {
            let mut approvals = ProjectApprovals::default();
            for (server, fingerprint) in *servers {
                approvals.servers.insert(
                    (*server).to_string(),
                    ServerApproval {
                        fingerprint: (*fingerprint).to_string(),
                    },
                );
            }
            file.projects.insert((*project).to_string(), approvals);
        }
        file
    }

    #[test]
    fn written_as_serde_json_pretty_writes_it() {
        let files = [
            ApprovalsFile::default(),
            file(&[]),
            file(&[("/p", &[])]),
            file(&[("/p", &[("a", "f1")])]),
            file(&[
                ("/home/me/x", &[("a", "sha256:1"), ("b", "")]),
                ("C:\\work\\\"q\"", &[("ünï\ncode\t\u{1}", "f\\")]),
                ("/z", &[]),
            ]),
        ];
        for f in &files {
            assert_eq!(
                approvals_pretty(f),
                serde_json::to_string_pretty(f).unwrap(),
                "{f:?}"
            );
        }
    }
}
