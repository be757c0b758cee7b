//! The node's own identity on disk: `{path.data}/nodes/0/_state/node-{gen}.st` (a state file,
//! `format/node-state.md`). A node keeps its id across restarts, as OpenSearch's `NodeMetadata`
//! does: the cluster (votes, shard copies) knows it by that id.

use std::path::Path;
use std::sync::Arc;

use serde_json::json;

use super::state_file::Kind;
use crate::engine::store::{Directory, FsDirectory};
use crate::error::{OsError, OsResult};

/// The node state files.
pub const NODE: Kind = Kind { codec: "fathom_node", prefix: "node-", what: "node state" };

/// The persistent node id of the node whose data is at `path_data`, created on first start.
pub fn load_or_create_node_id(path_data: &Path) -> OsResult<String> {
    let dir: Arc<dyn Directory> = Arc::new(FsDirectory::open(path_data.join("nodes").join("0").join("_state"))?);
    load_or_create(&dir)
}

/// [`load_or_create_node_id`] over a directory.
pub fn load_or_create(dir: &Arc<dyn Directory>) -> OsResult<String> {
    if let Some((gen, v)) = NODE.load(dir)? {
        return v.get("node_id").and_then(|s| s.as_str()).map(str::to_string).ok_or_else(|| {
            OsError::internal(format!("{} has no [node_id]; the node's data is damaged", NODE.file_name(gen)))
        });
    }
    let id = super::indices::new_uuid();
    NODE.store(dir, 1, &json!({"node_id": id, "node_version": "3.3.0"}))?;
    Ok(id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::store::RamDirectory;

    #[test]
    fn the_id_survives_a_restart() {
        let dir: Arc<dyn Directory> = Arc::new(RamDirectory::new());
        let a = load_or_create(&dir).unwrap();
        assert_eq!(load_or_create(&dir).unwrap(), a);
        assert_eq!(a.len(), 22);
    }
}
