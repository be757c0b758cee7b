//! OpenSearch's exception types in one table: the type name rendered in `"type"`, the HTTP status
//! (its `RestStatus`) and, for the JDK's own exceptions, the Java class (their `toString` is
//! `class: message`). Code compares kinds as values, never as strings.

use std::fmt;

macro_rules! error_kinds {
    ($($variant:ident = $name:literal, $status:literal, $java:expr;)*) => {
        /// An OpenSearch exception type.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum ErrorKind {
            $(
                #[doc = concat!("`", $name, "`")]
                $variant,
            )*
        }

        impl ErrorKind {
            /// Every kind, in table order.
            pub const ALL: &'static [ErrorKind] = &[$(ErrorKind::$variant),*];

            /// The type name OpenSearch renders: `index_not_found_exception`.
            pub const fn name(self) -> &'static str {
                match self {
                    $(ErrorKind::$variant => $name,)*
                }
            }

            /// The HTTP status OpenSearch answers with for this exception.
            pub const fn status(self) -> u16 {
                match self {
                    $(ErrorKind::$variant => $status,)*
                }
            }

            /// The JDK class of the JDK's own exceptions (`java.lang.IllegalArgumentException`).
            pub const fn java_class(self) -> Option<&'static str> {
                match self {
                    $(ErrorKind::$variant => $java,)*
                }
            }
        }
    };
}

error_kinds! {
    ActionRequestValidation = "action_request_validation_exception", 400, None;
    AggregationExecution = "aggregation_execution_exception", 500, None;
    AggregationInitialization = "aggregation_initialization_exception", 500, None;
    AliasMissing = "alias_missing_exception", 404, None;
    AliasesNotFound = "aliases_not_found_exception", 404, None;
    Arithmetic = "arithmetic_exception", 400, Some("java.lang.ArithmeticException");
    ActionNotFoundTransport = "action_not_found_transport_exception", 500, None;
    ArrayIndexOutOfBounds = "array_index_out_of_bounds_exception", 400, Some("java.lang.ArrayIndexOutOfBoundsException");
    BindTransport = "bind_transport_exception", 500, None;
    CircuitBreaking = "circuit_breaking_exception", 429, None;
    ClassCast = "class_cast_exception", 400, Some("java.lang.ClassCastException");
    ClusterBlock = "cluster_block_exception", 403, None;
    ClusterManagerNotDiscovered = "cluster_manager_not_discovered_exception", 503, None;
    ConnectTransport = "connect_transport_exception", 500, None;
    CorruptIndex = "corrupt_index_exception", 500, None;
    DecommissioningFailed = "decommissioning_failed_exception", 400, None;
    DocumentMissing = "document_missing_exception", 404, None;
    Engine = "engine_exception", 500, None;
    Exception = "exception", 500, None;
    // `FailProcessorException` (the ingest `fail` processor): a RuntimeException, so 500.
    FailProcessor = "fail_processor_exception", 500, None;
    FailedNode = "failed_node_exception", 500, None;
    IllegalArgument = "illegal_argument_exception", 400, Some("java.lang.IllegalArgumentException");
    IllegalState = "illegal_state_exception", 400, Some("java.lang.IllegalStateException");
    IndexClosed = "index_closed_exception", 400, None;
    IndexNotFound = "index_not_found_exception", 404, None;
    IndexOutOfBounds = "index_out_of_bounds_exception", 400, Some("java.lang.IndexOutOfBoundsException");
    IndexShardRecovery = "index_shard_recovery_exception", 500, None;
    IndexTemplateMissing = "index_template_missing_exception", 404, None;
    InputCoercion = "input_coercion_exception", 400, None;
    InvalidAliasName = "invalid_alias_name_exception", 400, None;
    InvalidIndexName = "invalid_index_name_exception", 400, None;
    InvalidIndexTemplate = "invalid_index_template_exception", 400, None;
    Io = "io_exception", 500, None;
    JsonParse = "json_parse_exception", 400, None;
    Mapper = "mapper_exception", 500, None;
    NamedObjectNotFound = "named_object_not_found_exception", 400, None;
    MapperParsing = "mapper_parsing_exception", 400, None;
    NodeDisconnected = "node_disconnected_exception", 500, None;
    NodeNotConnected = "node_not_connected_exception", 500, None;
    NodeWeighedAway = "node_weighed_away_exception", 421, None;
    NoShardAvailableAction = "no_shard_available_action_exception", 503, None;
    NotXContent = "not_x_content_exception", 400, None;
    NullPointer = "null_pointer_exception", 400, Some("java.lang.NullPointerException");
    NumberFormat = "number_format_exception", 400, Some("java.lang.NumberFormatException");
    OpenSearch = "opensearch_exception", 500, None;
    OpenSearchRejectedExecution = "opensearch_rejected_execution_exception", 429, None;
    Parse = "parse_exception", 400, None;
    Parsing = "parsing_exception", 400, None;
    PreferenceBasedSearchNotAllowed = "preference_based_search_not_allowed_exception", 403, None;
    NoSuchNode = "no_such_node_exception", 500, None;
    ProcessClusterEventTimeout = "process_cluster_event_timeout_exception", 503, None;
    QueryShard = "query_shard_exception", 400, None;
    QueryValidation = "query_validation_exception", 400, None;
    ReceiveTimeoutTransport = "receive_timeout_transport_exception", 503, None;
    RejectedExecution = "rejected_execution_exception", 429, None;
    ResourceAlreadyExists = "resource_already_exists_exception", 400, None;
    ResourceNotFound = "resource_not_found_exception", 404, None;
    RoutingMissing = "routing_missing_exception", 400, None;
    Runtime = "runtime_exception", 500, Some("java.lang.RuntimeException");
    Script = "script_exception", 400, None;
    SearchContextMissing = "search_context_missing_exception", 404, None;
    Search = "search_exception", 500, None;
    SearchPhaseExecution = "search_phase_execution_exception", 400, None;
    Security = "security_exception", 403, None;
    Settings = "settings_exception", 400, None;
    ShardNotFound = "shard_not_found_exception", 500, None;
    Status = "status_exception", 500, None;
    StrictDynamicMapping = "strict_dynamic_mapping_exception", 400, None;
    // `TaskCancelledException`: no `status()` override, so 500.
    TaskCancelled = "task_cancelled_exception", 500, None;
    StringIndexOutOfBounds = "string_index_out_of_bounds_exception", 400, Some("java.lang.StringIndexOutOfBoundsException");
    // `OpenSearchTimeoutException`: 500 in OpenSearch 3.3 (its `status()` override to 504 came later).
    Timeout = "timeout_exception", 500, None;
    TooManyBuckets = "too_many_buckets_exception", 503, None;
    TranslogCorrupted = "translog_corrupted_exception", 500, None;
    UnavailableShards = "unavailable_shards_exception", 503, None;
    UnsupportedOperation = "unsupported_operation_exception", 400, Some("java.lang.UnsupportedOperationException");
    UnsupportedWeightedRoutingState = "unsupported_weighted_routing_state_exception", 409, None;
    VersionConflictEngine = "version_conflict_engine_exception", 409, None;
    XContentParse = "x_content_parse_exception", 400, None;

}

impl ErrorKind {
    /// The kind with this type name, if Fathom knows it.
    pub fn from_name(name: &str) -> Option<ErrorKind> {
        ErrorKind::ALL.iter().copied().find(|k| k.name() == name)
    }

    /// The Java class's simple name: `document_missing_exception` → `DocumentMissingException`,
    /// `illegal_argument_exception` → `IllegalArgumentException`.
    pub fn java_simple_name(self) -> String {
        java_simple_name(self.name())
    }
}

/// The Java simple class name of an exception type name (for names read back from JSON too).
pub fn java_simple_name(name: &str) -> String {
    if let Some(class) = ErrorKind::from_name(name).and_then(ErrorKind::java_class) {
        return class.rsplit('.').next().unwrap_or(class).to_string();
    }
    name.split('_')
        .map(|w| {
            let mut c = w.chars();
            match c.next() {
                Some(f) => f.to_uppercase().chain(c).collect::<String>(),
                None => String::new(),
            }
        })
        .collect()
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl serde::Serialize for ErrorKind {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_round_trip() {
        for k in ErrorKind::ALL {
            assert_eq!(ErrorKind::from_name(k.name()), Some(*k));
            assert!(k.name().ends_with("exception"), "{k}");
        }
        let mut names: Vec<_> = ErrorKind::ALL.iter().map(|k| k.name()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), ErrorKind::ALL.len());
    }

    #[test]
    fn statuses_follow_opensearch() {
        assert_eq!(ErrorKind::IndexNotFound.status(), 404);
        assert_eq!(ErrorKind::VersionConflictEngine.status(), 409);
        assert_eq!(ErrorKind::ResourceAlreadyExists.status(), 400);
        assert_eq!(ErrorKind::UnavailableShards.status(), 503);
        assert_eq!(ErrorKind::Exception.status(), 500);
        assert_eq!(ErrorKind::IllegalArgument.status(), 400);
    }

    #[test]
    fn java_names() {
        assert_eq!(ErrorKind::DocumentMissing.java_simple_name(), "DocumentMissingException");
        assert_eq!(ErrorKind::IllegalArgument.java_class(), Some("java.lang.IllegalArgumentException"));
        assert_eq!(ErrorKind::IllegalArgument.java_simple_name(), "IllegalArgumentException");
        assert_eq!(java_simple_name("some_new_exception"), "SomeNewException");
    }
}
