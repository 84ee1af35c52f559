//! A connection's listing (`ListingMachine`); `listing.rs` carries it out.

pub(in crate::engine) mod machine;
