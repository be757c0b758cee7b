//! System indices: the index patterns OpenSearch's core registers as system indices (with their
//! descriptions), as `_cat/indices?system=true` and the system-index access warning report them.

use super::resolve::glob;

/// `(pattern, description)` of the system indices OpenSearch's core itself registers.
const DESCRIPTORS: &[(&str, &str)] = &[(".tasks*", "Task Result Index")];

/// The description of `index` if it is a system index.
pub fn description(index: &str) -> Option<&'static str> {
    DESCRIPTORS.iter().find(|(p, _)| glob(p, index)).map(|(_, d)| *d)
}

#[cfg(test)]
mod tests {
    #[test]
    fn tasks_index_is_system() {
        assert_eq!(super::description(".tasks"), Some("Task Result Index"));
        assert_eq!(super::description(".tasks-x"), Some("Task Result Index"));
        assert_eq!(super::description("tasks"), None);
    }
}
