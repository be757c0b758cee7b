//! Fault injection for tests: rules per remote node (by node id or by transport address) that
//! drop, delay or partition the messages of the whole transport. Deterministic (no randomness)
//! and bounded (at most [`MAX_RULES`] rules, delays at most [`MAX_DELAY`]).

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Duration;

/// Most rules a transport holds; adding more replaces nothing and is refused.
pub const MAX_RULES: usize = 1024;
/// Longest delay a rule may set (longer ones are clamped).
pub const MAX_DELAY: Duration = Duration::from_secs(60);

/// Which remote node a rule applies to.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum FaultTarget {
    /// The node with this node id (known once the handshake has told it).
    Node(String),
    /// The node at this transport address (its publish address, or the address dialed).
    Address(SocketAddr),
}

/// What happens to the messages exchanged with a target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// Every message this node sends to the target is dropped (the target's messages still
    /// arrive). Requests to it time out.
    DropOutbound,
    /// Every message this node sends to the target waits this long first.
    Delay(Duration),
    /// Messages in both directions are dropped: sends to the target and frames received from it,
    /// so this node is cut off from the target whatever the target does.
    Partition,
}

/// What to do with one message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Deliver,
    Drop,
    DelayBy(Duration),
}

/// Direction of a message relative to this node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    Outbound,
    Inbound,
}

/// The fault rules of one transport.
#[derive(Debug, Default)]
pub struct Faults {
    rules: Mutex<Vec<(FaultTarget, Fault)>>,
    dropped: AtomicU64,
    delayed: AtomicU64,
}

impl Faults {
    /// Sets the rule for `target`, replacing its previous rule. Errors when [`MAX_RULES`] other
    /// targets already have rules.
    pub fn set(&self, target: FaultTarget, fault: Fault) -> Result<(), String> {
        let fault = match fault {
            Fault::Delay(d) => Fault::Delay(d.min(MAX_DELAY)),
            f => f,
        };
        let mut rules = self.rules.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(r) = rules.iter_mut().find(|(t, _)| *t == target) {
            r.1 = fault;
            return Ok(());
        }
        if rules.len() >= MAX_RULES {
            return Err(format!("at most [{MAX_RULES}] fault rules"));
        }
        rules.push((target, fault));
        Ok(())
    }

    /// Drops every message sent to `target`.
    pub fn drop_all(&self, target: FaultTarget) -> Result<(), String> {
        self.set(target, Fault::DropOutbound)
    }

    /// Delays every message sent to `target`.
    pub fn delay(&self, target: FaultTarget, by: Duration) -> Result<(), String> {
        self.set(target, Fault::Delay(by))
    }

    /// Cuts this node off from `target` in both directions.
    pub fn partition(&self, target: FaultTarget) -> Result<(), String> {
        self.set(target, Fault::Partition)
    }

    /// Removes the rule for `target`.
    pub fn clear(&self, target: &FaultTarget) {
        self.rules.lock().unwrap_or_else(|e| e.into_inner()).retain(|(t, _)| t != target);
    }

    /// Removes every rule.
    pub fn clear_all(&self) {
        self.rules.lock().unwrap_or_else(|e| e.into_inner()).clear();
    }

    /// Messages dropped so far.
    pub fn dropped_count(&self) -> u64 {
        self.dropped.load(Ordering::Relaxed)
    }

    /// Messages delayed so far.
    pub fn delayed_count(&self) -> u64 {
        self.delayed.load(Ordering::Relaxed)
    }

    /// The verdict for one message exchanged with the node `node_id` (when known) at `addrs`
    /// (the dialed address and the node's publish address). The first matching rule wins, in
    /// the order rules were first set; it is counted.
    pub fn verdict(&self, node_id: Option<&str>, addrs: &[SocketAddr], dir: Direction) -> Verdict {
        let rules = self.rules.lock().unwrap_or_else(|e| e.into_inner());
        if rules.is_empty() {
            return Verdict::Deliver;
        }
        let hit = rules.iter().find(|(t, _)| match t {
            FaultTarget::Node(id) => node_id == Some(id.as_str()),
            FaultTarget::Address(a) => addrs.contains(a),
        });
        let v = match (hit.map(|r| r.1), dir) {
            (None, _) => Verdict::Deliver,
            (Some(Fault::Partition), _) | (Some(Fault::DropOutbound), Direction::Outbound) => Verdict::Drop,
            (Some(Fault::Delay(d)), Direction::Outbound) => Verdict::DelayBy(d),
            (Some(_), Direction::Inbound) => Verdict::Deliver,
        };
        match v {
            Verdict::Drop => self.dropped.fetch_add(1, Ordering::Relaxed),
            Verdict::DelayBy(_) => self.delayed.fetch_add(1, Ordering::Relaxed),
            Verdict::Deliver => 0,
        };
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_match_by_id_or_address_and_direction() {
        let f = Faults::default();
        let a: SocketAddr = "127.0.0.1:1".parse().unwrap();
        let b: SocketAddr = "127.0.0.1:2".parse().unwrap();
        assert_eq!(f.verdict(Some("x"), &[a], Direction::Outbound), Verdict::Deliver);
        f.drop_all(FaultTarget::Node("x".into())).unwrap();
        assert_eq!(f.verdict(Some("x"), &[b], Direction::Outbound), Verdict::Drop);
        assert_eq!(f.verdict(Some("x"), &[b], Direction::Inbound), Verdict::Deliver);
        assert_eq!(f.verdict(Some("y"), &[b], Direction::Outbound), Verdict::Deliver);
        f.partition(FaultTarget::Address(a)).unwrap();
        assert_eq!(f.verdict(None, &[a], Direction::Inbound), Verdict::Drop);
        assert_eq!(f.verdict(Some("y"), &[b, a], Direction::Outbound), Verdict::Drop);
        f.delay(FaultTarget::Address(a), Duration::from_secs(3600)).unwrap();
        assert_eq!(f.verdict(None, &[a], Direction::Outbound), Verdict::DelayBy(MAX_DELAY));
        assert_eq!(f.verdict(None, &[a], Direction::Inbound), Verdict::Deliver);
        assert_eq!((f.dropped_count(), f.delayed_count()), (3, 1));
        f.clear(&FaultTarget::Node("x".into()));
        assert_eq!(f.verdict(Some("x"), &[b], Direction::Outbound), Verdict::Deliver);
        f.clear_all();
        assert_eq!(f.verdict(None, &[a], Direction::Outbound), Verdict::Deliver);
    }

    #[test]
    fn rule_count_is_bounded() {
        let f = Faults::default();
        for p in 0..MAX_RULES {
            f.partition(FaultTarget::Address(SocketAddr::from(([127, 0, 0, 1], p as u16)))).unwrap();
        }
        assert!(f.partition(FaultTarget::Node("one more".into())).is_err());
        // Replacing an existing rule is still allowed.
        f.drop_all(FaultTarget::Address(SocketAddr::from(([127, 0, 0, 1], 0)))).unwrap();
    }
}
