//! Path arithmetic on strings for the host's platform. The core never touches
//! the file system: the host passes absolute paths, the core joins them with the
//! platform's separator (`\` on win32, `/` elsewhere).

use crate::vec_map::VecMap;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Platform {
    Linux,
    Darwin,
    Win32,
}

impl Platform {
    /// `"win32"` and `"darwin"` as Node's `process.platform` says; anything else
    /// (linux, freebsd, ...) is treated as a Linux-like system.
    pub(crate) fn parse(name: &str) -> Platform {
        match name.to_ascii_lowercase().as_str() {
            "win32" | "windows" => Platform::Win32,
            "darwin" | "macos" => Platform::Darwin,
            _ => Platform::Linux,
        }
    }

    pub(crate) fn separator(self) -> char {
        match self {
            Platform::Win32 => '\\',
            Platform::Linux | Platform::Darwin => '/',
        }
    }

    fn is_separator(self, c: char) -> bool {
        c == '/' || (self == Platform::Win32 && c == '\\')
    }

    /// `base` joined with a relative path written with `/` separators.
    pub(crate) fn join(self, base: &str, relative: &str) -> String {
        let sep = self.separator();
        let mut out = base.trim_end_matches(|c| self.is_separator(c)).to_string();
        for part in relative.split(|c| self.is_separator(c)) {
            if part.is_empty() || part == "." {
                continue;
            }
            out.push(sep);
            out.push_str(part);
        }
        out
    }

    /// Everything before the last separator ("" when there is none).
    pub(crate) fn dirname(self, path: &str) -> String {
        let trimmed = path.trim_end_matches(|c| self.is_separator(c));
        match trimmed.rfind(|c| self.is_separator(c)) {
            Some(0) => self.separator().to_string(),
            Some(i) => trimmed.get(..i).unwrap_or("").to_string(),
            None => String::new(),
        }
    }

    /// The last path component.
    pub(crate) fn basename(self, path: &str) -> String {
        let trimmed = path.trim_end_matches(|c| self.is_separator(c));
        match trimmed.rfind(|c| self.is_separator(c)) {
            Some(i) => trimmed.get(i + 1..).unwrap_or("").to_string(),
            None => trimmed.to_string(),
        }
    }

    pub(crate) fn is_absolute(self, path: &str) -> bool {
        match self {
            Platform::Win32 => {
                let mut chars = path.chars();
                let first = chars.next();
                let second = chars.next();
                matches!(first, Some('\\' | '/')) || second == Some(':')
            }
            Platform::Linux | Platform::Darwin => path.starts_with('/'),
        }
    }

    /// Comparison key: separators unified, trailing separators dropped, and on
    /// win32 case folded (NTFS paths are case-insensitive).
    pub(crate) fn comparison_key(self, path: &str) -> String {
        match self {
            Platform::Win32 => path
                .replace('/', "\\")
                .trim_end_matches('\\')
                .to_lowercase(),
            Platform::Linux | Platform::Darwin => path.trim_end_matches('/').to_string(),
        }
    }

    pub(crate) fn same_path(self, a: &str, b: &str) -> bool {
        self.comparison_key(a) == self.comparison_key(b)
    }

    /// `path` with `.` and `..` components resolved without touching the disk
    /// (a `..` above the root stays at the root), separators unified.
    pub(crate) fn lexically_normal(self, path: &str) -> String {
        let sep = self.separator();
        let mut parts: Vec<&str> = Vec::new();
        let mut pieces = path.split(|c| self.is_separator(c));
        let root = pieces.next().unwrap_or("");
        for piece in pieces {
            match piece {
                "" | "." => {}
                ".." => {
                    parts.pop();
                }
                other => parts.push(other),
            }
        }
        let mut out = root.to_string();
        for part in parts {
            out.push(sep);
            out.push_str(part);
        }
        if out.is_empty() {
            out.push(sep);
        }
        out
    }

    /// `path` is `folder` or inside it (both absolute and lexically normal).
    pub(crate) fn is_within(self, path: &str, folder: &str) -> bool {
        let path = self.comparison_key(path);
        let folder = self.comparison_key(folder);
        let sep = self.separator();
        path == folder
            || path
                .strip_prefix(&folder)
                .is_some_and(|rest| rest.starts_with(sep) || rest.starts_with('/'))
    }

    /// An environment variable as the host passed it; names are case-insensitive
    /// on win32. Empty values count as set.
    pub(crate) fn env_var<'e>(
        self,
        env: &'e VecMap<String, String>,
        name: &str,
    ) -> Option<&'e str> {
        if let Some(value) = env.get(name) {
            return Some(value.as_str());
        }
        match self {
            Platform::Win32 => env
                .iter()
                .find(|(key, _)| key.eq_ignore_ascii_case(name))
                .map(|(_, value)| value.as_str()),
            Platform::Linux | Platform::Darwin => None,
        }
    }

    /// An environment variable that is set and not empty.
    pub(crate) fn env_dir<'e>(
        self,
        env: &'e VecMap<String, String>,
        name: &str,
    ) -> Option<&'e str> {
        self.env_var(env, name)
            .filter(|value| !value.trim().is_empty())
    }
}

#[cfg(test)]
mod tests {
    use super::Platform;

    #[test]
    fn joins_with_the_platform_separator() {
        assert_eq!(
            Platform::Linux.join("/home/u/", ".vscode/mcp.json"),
            "/home/u/.vscode/mcp.json"
        );
        assert_eq!(
            Platform::Win32.join("C:\\Users\\u\\", ".vscode/mcp.json"),
            "C:\\Users\\u\\.vscode\\mcp.json"
        );
        assert_eq!(Platform::Linux.join("/", "a"), "/a");
    }

    #[test]
    fn lexically_normal_paths() {
        let l = Platform::Linux;
        assert_eq!(l.lexically_normal("/w/app/../../etc/shadow"), "/etc/shadow");
        assert_eq!(l.lexically_normal("/w/./app//x"), "/w/app/x");
        assert_eq!(l.lexically_normal("/../.."), "/");
        assert!(l.is_within("/w/app/x", "/w/app"));
        assert!(!l.is_within("/w/apple", "/w/app"));
        assert!(l.is_within("/w/app", "/w/app/"));
        let w = Platform::Win32;
        assert_eq!(w.lexically_normal("C:\\w\\a\\..\\b"), "C:\\w\\b");
        assert!(w.is_within("c:\\W\\x", "C:\\w"));
    }

    #[test]
    fn dirname_and_basename() {
        assert_eq!(Platform::Linux.dirname("/w/app/opencode.json"), "/w/app");
        assert_eq!(Platform::Linux.dirname("/opencode.json"), "/");
        assert_eq!(Platform::Win32.basename("C:\\w\\app\\"), "app");
        assert_eq!(Platform::Linux.basename("/w/app"), "app");
    }

    #[test]
    fn windows_paths_compare_case_and_slash_insensitively() {
        assert!(Platform::Win32.same_path("C:/Work/App", "c:\\work\\app\\"));
        assert!(!Platform::Linux.same_path("/Work/App", "/work/app"));
    }
}
