//! The security configuration index on a node with security on: the `configupdate` transport
//! action (reload from the index when another node changed it), and the loader thread that, once
//! the cluster has formed, creates the index from the files on the elected cluster manager
//! (`plugins.security.allow_default_init_securityindex`) and loads the node's configuration from
//! the index as soon as it is readable (the plugin's `ConfigurationRepository` background load).

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use super::Node;
use crate::action::nodes_fanout::cluster_manager;
use crate::action::security::{index, reload};
use crate::security::config::index_settings::IndexSettings;
use crate::transport::Transport;

/// How often the loader retries while the index is not readable yet.
const RETRY: Duration = Duration::from_millis(250);

/// Registers `cluster:admin/opendistro_security/config/update`.
pub fn register(node: &Arc<Node>, transport: &Transport) {
    let n = node.clone();
    transport.register_fn(reload::ACTION_CONFIG_UPDATE, move |req| {
        let n = n.clone();
        async move {
            let cs = n.cluster.clone();
            let svc = n.security.get().cloned();
            super::transport_actions::on_pool(
                &n,
                &n.pools.generic,
                super::transport_actions::task_of(&req),
                move || reload::handle(&cs, svc.as_deref(), &req.payload),
            )
            .await
        }
    });
}

/// Starts the loader thread when the node has a security configuration; it ends once the node
/// loaded from the index (later changes arrive through `configupdate`) or the node stops.
pub fn start_loader(node: &Arc<Node>) -> Result<(), String> {
    let Some(svc) = node.security.get().cloned() else { return Ok(()) };
    let settings = IndexSettings::from_node(&node.settings);
    let cs = node.cluster.clone();
    let stop = node.stop_flag();
    std::thread::Builder::new()
        .name(format!("fathom[{}][security_config][T#1]", cs.node.node_name))
        .spawn(move || {
            let mut last_error = String::new();
            while !stop.load(Ordering::Relaxed) {
                let manager = cluster_manager(&cs);
                let is_manager = manager.as_deref() == Some(cs.node.node_id.as_str());
                if manager.is_some() && !index::exists(&cs, &settings.index) && is_manager && settings.allow_default_init
                {
                    match index::initialize(&cs, &settings.index, &svc.current()) {
                        Ok(()) => tracing::info!(index = %settings.index, "security index created from the configuration files"),
                        Err(e) => note(&mut last_error, format!("cannot create the security index: {}", e.reason)),
                    }
                }
                if index::exists(&cs, &settings.index) {
                    match reload::reload_local(&cs, &svc, &settings.index) {
                        Ok(true) => {
                            tracing::info!(index = %settings.index, "security configuration loaded from the index");
                            return;
                        }
                        Ok(false) => {}
                        Err(e) => note(&mut last_error, format!("security index not readable yet: {}", e.reason)),
                    }
                }
                std::thread::sleep(RETRY);
            }
        })
        .map(|_| ())
        .map_err(|e| format!("cannot start the security configuration thread: {e}"))
}

/// Logs a retry reason once (not every 250 ms).
fn note(last: &mut String, msg: String) {
    if *last != msg {
        tracing::debug!("{msg}");
        *last = msg;
    }
}
