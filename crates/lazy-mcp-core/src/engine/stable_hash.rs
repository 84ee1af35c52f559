//! FNV-1a 64-bit: a small, dependency-free hash that is the same on every platform
//! and every run (used for endpoint versions and shortened aggregate names).

pub fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in bytes {
        hash ^= u64::from(*byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash
}

/// FNV-1a 64 as an `io::Write`, to hash serialized JSON without building a string.
pub struct Fnv1a64Writer(u64);

impl Default for Fnv1a64Writer {
    fn default() -> Self {
        Fnv1a64Writer(0xcbf2_9ce4_8422_2325)
    }
}

impl Fnv1a64Writer {
    pub fn finish(&self) -> u64 {
        self.0
    }
}

impl std::io::Write for Fnv1a64Writer {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        for byte in bytes {
            self.0 ^= u64::from(*byte);
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Lower-case hex of [`fnv1a64`], 16 characters.
pub fn fnv1a64_hex(bytes: &[u8]) -> String {
    format!("{:016x}", fnv1a64(bytes))
}
