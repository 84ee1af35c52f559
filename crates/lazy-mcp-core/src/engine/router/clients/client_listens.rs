//! A listen opened (`clients/client_listens.rs`): the servers' resource
//! subscriptions follow the set of (server, URI) pairs it names, and each
//! server named is subscribed or unsubscribed upstream once.

use crate::engine::clients::client_listens::ListenChange;
use crate::engine::router::Engine;
use crate::engine::server::Subscriber;
use crate::vec_map::VecSet;

impl Engine {
    /// A listen opened (`Clients::listen`, under `key`): the servers'
    /// subscriptions follow the new set.
    pub(in crate::engine) fn listen_opened(
        &mut self,
        client: &str,
        key: String,
        (old, resources): ListenChange,
    ) {
        // The servers it names (and those a listen of the same id named) are
        // subscribed or unsubscribed once the table says the new set.
        let servers: VecSet<String> = old
            .iter()
            .chain(resources.iter())
            .map(|(server, _)| server.clone())
            .collect();
        let before: Vec<(String, VecSet<String>)> = servers
            .into_iter()
            .map(|name| {
                let uris = self.servers.subscribed_uris(&name);
                (name, uris)
            })
            .collect();
        let subscriber = Subscriber::Listen(client.to_string(), key);
        for (server, uri) in &old {
            self.servers.unsubscribe(server, uri, &subscriber, false);
        }
        for (server, uri) in &resources {
            self.servers.subscribe(server, uri, subscriber.clone());
        }
        for (name, _) in &before {
            self.servers.forget_unwanted(name);
        }
        for (name, uris) in before {
            self.with_servers(|servers, ctx| {
                servers.sync_upstream_subscriptions(ctx, &name, &uris)
            });
        }
    }
}
