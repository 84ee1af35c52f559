//! A server's OAuth (`AuthMachine`, with `ConnAuth` per connection) and the
//! sign-in announcements `Servers` holds (`auth.rs` carries them out).

pub(in crate::engine) mod announcements;
pub(in crate::engine) mod machine;
