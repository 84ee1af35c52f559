//! How a config file is named to the user (Diagnostics, the snapshot's sources).

/// How a file is named to the user (`diagnostics::display_path`), with the workspace folders and home directory given (the
/// engine's snapshot names each server's source this way too).
pub fn display_path_in(workspace_folders: &[String], home: &str, path: &str) -> String {
    let several = workspace_folders.len() > 1;
    let mut folders: Vec<&String> = workspace_folders.iter().collect();
    // The deepest folder wins when folders nest.
    crate::sorting::sort_by_key(&mut folders, |f| std::cmp::Reverse(f.len()));
    for folder in folders {
        if let Some(rest) = strip_dir(path, folder) {
            if several {
                let name = folder
                    .trim_end_matches(['/', '\\'])
                    .rsplit(['/', '\\'])
                    .next()
                    .unwrap_or_default();
                return format!("{name}/{rest}");
            }
            return rest.to_string();
        }
    }
    if let Some(rest) = strip_dir(path, home) {
        return format!("~/{rest}");
    }
    path.to_string()
}

/// `path` relative to `dir` when it lies inside it.
fn strip_dir<'p>(path: &'p str, dir: &str) -> Option<&'p str> {
    let dir = dir.trim_end_matches(['/', '\\']);
    if dir.is_empty() {
        return None;
    }
    let rest = path.strip_prefix(dir)?;
    let rest = rest.strip_prefix(['/', '\\'])?;
    (!rest.is_empty()).then_some(rest)
}
