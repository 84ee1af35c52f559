//! A user's command about one server, as the router hands it to `Servers`
//! (its own file: the router names it, and it names nothing back).

/// Enable, Disable, Connect Now or Disconnect (the events of the same names).
#[derive(Clone, Copy)]
pub(in crate::engine) enum Command {
    Enable,
    Disable,
    ConnectNow,
    Disconnect,
}
