//! An in-memory network for the coordination simulation: every node's [`Coordinator`] is
//! registered by node id; calls between them can be partitioned, dropped or delayed, decided by
//! a seeded generator so a failing seed replays the same faults.

use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::network::{Wire, WireError, WireFuture};
use super::{ClusterNode, Coordinator};

/// The network.
#[derive(Debug, Default)]
pub struct SimNet {
    inner: Mutex<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    nodes: HashMap<String, Coordinator>,
    /// Pairs (from, to) whose messages are lost.
    cut: BTreeSet<(String, String)>,
    /// Per mille of messages lost at random.
    drop_per_mille: u64,
    /// Largest random delay of a message.
    max_delay: Duration,
    rng: u64,
}

fn lock(m: &Mutex<Inner>) -> std::sync::MutexGuard<'_, Inner> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl SimNet {
    pub fn new(seed: u64) -> Arc<SimNet> {
        let net = SimNet::default();
        lock(&net.inner).rng = seed | 1;
        Arc::new(net)
    }

    /// The wire of node `from`.
    pub fn wire(self: &Arc<Self>, from: &str) -> Arc<dyn Wire> {
        Arc::new(SimWire { net: self.clone(), from: from.to_string() })
    }

    pub fn register(&self, c: Coordinator) {
        lock(&self.inner).nodes.insert(c.local.node_id.clone(), c);
    }

    /// A node that crashed: messages to it go nowhere.
    pub fn unregister(&self, node_id: &str) {
        lock(&self.inner).nodes.remove(node_id);
    }

    /// Cuts `a` off from every node in `others`, both ways.
    pub fn partition(&self, a: &str, others: &[String]) {
        let mut g = lock(&self.inner);
        for b in others {
            g.cut.insert((a.to_string(), b.clone()));
            g.cut.insert((b.clone(), a.to_string()));
        }
    }

    pub fn heal(&self) {
        lock(&self.inner).cut.clear();
    }

    /// Random loss and delay of every message.
    pub fn set_noise(&self, drop_per_mille: u64, max_delay: Duration) {
        let mut g = lock(&self.inner);
        g.drop_per_mille = drop_per_mille;
        g.max_delay = max_delay;
    }

    fn next(&self) -> u64 {
        let mut g = lock(&self.inner);
        // xorshift64*
        g.rng ^= g.rng >> 12;
        g.rng ^= g.rng << 25;
        g.rng ^= g.rng >> 27;
        g.rng.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
}

#[derive(Debug)]
struct SimWire {
    net: Arc<SimNet>,
    from: String,
}

impl Wire for SimWire {
    fn call(&self, to: &ClusterNode, action: &'static str, payload: Vec<u8>, timeout: Duration) -> WireFuture {
        let net = self.net.clone();
        let from = self.from.clone();
        let to = to.node_id.clone();
        Box::pin(async move {
            let (target, lost, delay) = {
                let r1 = net.next();
                let r2 = net.next();
                let g = lock(&net.inner);
                let cut = g.cut.contains(&(from.clone(), to.clone()));
                let lost = cut || r1 % 1000 < g.drop_per_mille;
                let delay = if g.max_delay.is_zero() {
                    Duration::ZERO
                } else {
                    Duration::from_micros(r2 % g.max_delay.as_micros().max(1) as u64)
                };
                (g.nodes.get(&to).cloned(), lost, delay)
            };
            let Some(target) = target else {
                return Err(WireError::Unreachable(format!("[{to}] is down")));
            };
            if lost {
                tokio::time::sleep(timeout.min(Duration::from_millis(200))).await;
                return Err(WireError::Timeout(format!("[{action}] to [{to}] was lost")));
            }
            tokio::time::sleep(delay).await;
            match tokio::time::timeout(timeout, target.handle(action, &payload)).await {
                Ok(Ok(bytes)) => {
                    // The answer crosses the network too.
                    if lock(&net.inner).cut.contains(&(to.clone(), from.clone())) {
                        return Err(WireError::Timeout(format!("answer of [{to}] to [{action}] was lost")));
                    }
                    Ok(bytes)
                }
                Ok(Err(reason)) => Err(WireError::Remote(reason)),
                Err(_) => Err(WireError::Timeout(format!("[{action}] to [{to}] timed out"))),
            }
        })
    }
}
