pub mod aggs;
pub mod http;
