pub mod aggs;
pub mod cluster;
pub mod http;
