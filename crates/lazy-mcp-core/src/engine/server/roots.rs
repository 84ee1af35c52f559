//! Workspace folders → the `roots` answered to upstream `roots/list`: one file URI
//! per folder, encoded the same way for every host and platform (a space, a `#`
//! or a Windows drive in a folder path must still give a valid URI, and two hosts
//! must not describe the same folder differently).

use crate::engine::settings::Root;

/// Bytes that stay literal in a file URI path: RFC 3986 unreserved characters,
/// the path separator and the sub-delimiters a path may hold (`:` for drives).
fn keeps(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || b"-._~/!$&'()*+,;=:@".contains(&byte)
}

fn percent_encode(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for byte in path.bytes() {
        if keeps(byte) {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// A Windows path: a drive (`C:\…`, `C:/…`) or a UNC share (`\\server\share`).
fn is_windows_path(path: &str) -> bool {
    let bytes = path.as_bytes();
    let drive = matches!(bytes, [letter, b':', ..] if letter.is_ascii_alphabetic());
    drive || path.starts_with("\\\\")
}

/// `file://` URI of an absolute folder path (RFC 8089; what Node's `pathToFileURL` gives).
pub fn file_uri(path: &str) -> String {
    if is_windows_path(path) {
        let slashed = path.replace('\\', "/");
        if let Some(unc) = slashed.strip_prefix("//") {
            // `\\server\share\dir` → `file://server/share/dir`
            let (host, rest) = unc.split_once('/').unwrap_or((unc, ""));
            return format!("file://{}/{}", percent_encode(host), percent_encode(rest));
        }
        return format!("file:///{}", percent_encode(&slashed));
    }
    let absolute = if path.starts_with('/') {
        path.to_string()
    } else {
        format!("/{path}")
    };
    format!("file://{}", percent_encode(&absolute))
}

/// The folder's display name: its last path component.
fn folder_name(path: &str) -> Option<String> {
    path.trim_end_matches(['/', '\\'])
        .rsplit(['/', '\\'])
        .next()
        .filter(|name| !name.is_empty())
        .map(str::to_string)
}

pub fn roots_from_folders(folders: &[String]) -> Vec<Root> {
    folders
        .iter()
        .map(|folder| Root {
            uri: file_uri(folder),
            name: folder_name(folder),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn posix_paths() {
        assert_eq!(file_uri("/work/project"), "file:///work/project");
        assert_eq!(
            file_uri("/home/me/my project"),
            "file:///home/me/my%20project"
        );
        assert_eq!(file_uri("/a/#b?c%d"), "file:///a/%23b%3Fc%25d");
        assert_eq!(file_uri("/ü"), "file:///%C3%BC");
    }

    #[test]
    fn windows_paths() {
        assert_eq!(
            file_uri("C:\\Users\\me\\my project"),
            "file:///C:/Users/me/my%20project"
        );
        assert_eq!(file_uri("d:/src"), "file:///d:/src");
        assert_eq!(
            file_uri("\\\\server\\share\\dir"),
            "file://server/share/dir"
        );
    }

    #[test]
    fn names_are_the_last_component() {
        let roots = roots_from_folders(&["/work/my project/".into(), "C:\\src\\app".into()]);
        let names: Vec<_> = roots.iter().map(|r| r.name.as_deref()).collect();
        assert_eq!(names, [Some("my project"), Some("app")]);
    }
}
