//! Stable fingerprint of everything that affects launching a server: the
//! transport's fields after variable expansion (command, args, env, cwd,
//! envFile / url, headers). Not the name, the source location, or Lazy MCP's
//! own flags (enabled, autoConnect, tools, timeout, toolExposure).
//!
//! FNV-1a, 128-bit, over a length-prefixed encoding, so `["a b"]` and
//! `["a", "b"]` differ. Secret values go into the hash, never into the output.

use super::model::Transport;
use crate::vec_map::VecMap;

const FNV_OFFSET: u128 = 0x6c62_272e_07bb_0142_62b8_2175_6295_c58d;
const FNV_PRIME: u128 = 0x0000_0000_0100_0000_0000_0000_0000_013b;

struct Fnv1a128(u128);

impl Fnv1a128 {
    fn bytes(&mut self, bytes: &[u8]) {
        for byte in bytes {
            self.0 ^= u128::from(*byte);
            self.0 = self.0.wrapping_mul(FNV_PRIME);
        }
    }

    fn field(&mut self, text: &str) {
        self.bytes(&(text.len() as u64).to_le_bytes());
        self.bytes(text.as_bytes());
    }

    fn map(&mut self, tag: &str, map: &VecMap<String, String>) {
        self.field(tag);
        self.bytes(&(map.len() as u64).to_le_bytes());
        for (key, value) in map {
            self.field(key);
            self.field(value);
        }
    }

    fn optional(&mut self, tag: &str, value: Option<&String>) {
        self.field(tag);
        match value {
            Some(value) => {
                self.bytes(&[1]);
                self.field(value);
            }
            None => self.bytes(&[0]),
        }
    }
}

/// 32 lowercase hex digits.
pub fn fingerprint(transport: &Transport) -> String {
    let mut hash = Fnv1a128(FNV_OFFSET);
    match transport {
        Transport::Stdio {
            command,
            args,
            env,
            cwd,
            env_file,
        } => {
            hash.field("stdio");
            hash.field(command);
            hash.bytes(&(args.len() as u64).to_le_bytes());
            for arg in args {
                hash.field(arg);
            }
            hash.map("env", env);
            hash.optional("cwd", cwd.as_ref());
            hash.optional("envFile", env_file.as_ref());
        }
        Transport::Http { url, headers } => {
            hash.field("http");
            hash.field(url);
            hash.map("headers", headers);
        }
        Transport::Sse { url, headers } => {
            hash.field("sse");
            hash.field(url);
            hash.map("headers", headers);
        }
    }
    format!("{:032x}", hash.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stdio(args: &[&str]) -> Transport {
        Transport::Stdio {
            command: "npx".into(),
            args: args.iter().map(|a| a.to_string()).collect(),
            env: VecMap::new(),
            cwd: None,
            env_file: None,
        }
    }

    #[test]
    fn known_value_and_boundaries() {
        assert_eq!(fingerprint(&stdio(&["a"])), fingerprint(&stdio(&["a"])));
        assert_eq!(fingerprint(&stdio(&["a"])).len(), 32);
        assert_ne!(
            fingerprint(&stdio(&["a b"])),
            fingerprint(&stdio(&["a", "b"]))
        );
        assert_ne!(
            fingerprint(&stdio(&["ab"])),
            fingerprint(&stdio(&["a", "b"]))
        );
    }
}
