//! shard/: one shard copy: engine + translog + seq_no tracking + recovery state. (Under construction.)
