//! Tests of the search action over a real shard (see the functions).
