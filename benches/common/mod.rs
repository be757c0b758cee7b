//! Shared by the benches: the corpora (a fixed sample of `/tmp/corpus/*.ndjson`), the same schema
//! on both engines, Fathom's standard analyzer wrapped as a tantivy tokenizer (so both engines
//! index identical terms and hit counts can be asserted equal), CPU-time measurement, and builders
//! of force-merged single-segment indexes for the read-side benches.
//!
//! Not every bench uses every item.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use fathom::engine::analysis::{Analyzer, StandardAnalyzer};
use fathom::engine::index::{Document, IndexWriter, IndexWriterConfig};
use fathom::engine::schema::Mapping;
use fathom::engine::store::FsDirectory;
use serde_json::{json, Value};
use tantivy::schema::{
    DateOptions, IndexRecordOption, IpAddrOptions, NumericOptions, Schema, TextFieldIndexing, TextOptions, FAST,
    INDEXED, STORED, STRING,
};
use tantivy::tokenizer::{Token, TokenStream, Tokenizer};
use tantivy::{DateTime, TantivyDocument};

/// Writer memory budget on both sides (the reference figures use 512 MB for tantivy): large
/// enough that each sample indexes into one segment, so neither side merges while indexing.
pub const WRITER_BUDGET: usize = 512 << 20;

/// Lines of `text.ndjson` in the fixed sample.
pub const TEXT_SAMPLE: usize = 50_000;
/// Lines of `logs.ndjson` in the fixed sample.
pub const LOGS_SAMPLE: usize = 200_000;

/// Name under which the wrapped Fathom analyzer is registered in tantivy.
pub const FATHOM_TOKENIZER: &str = "fathom_standard";

/// The two corpora of `shared/bench/README.md`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Corpus {
    Text,
    Logs,
}

impl Corpus {
    pub fn name(self) -> &'static str {
        match self {
            Corpus::Text => "text",
            Corpus::Logs => "logs",
        }
    }

    pub fn sample(self) -> usize {
        match self {
            Corpus::Text => TEXT_SAMPLE,
            Corpus::Logs => LOGS_SAMPLE,
        }
    }

    /// `$FATHOM_CORPUS_DIR` (default `/tmp/corpus`)/`<name>.ndjson`.
    pub fn path(self) -> PathBuf {
        let dir =
            std::env::var_os("FATHOM_CORPUS_DIR").map(PathBuf::from).unwrap_or_else(|| PathBuf::from("/tmp/corpus"));
        dir.join(format!("{}.ndjson", self.name()))
    }

    /// The first `sample()` lines, or `None` (after printing how to build the corpus) when the
    /// file is missing, so that the bench skips.
    pub fn load(self) -> Option<Vec<String>> {
        self.load_n(self.sample())
    }

    /// The first `n` lines (all of them if the file is shorter), or `None` as [`Corpus::load`].
    pub fn load_n(self, n: usize) -> Option<Vec<String>> {
        let path = self.path();
        let Ok(file) = std::fs::File::open(&path) else {
            eprintln!(
                "SKIP: corpus {} not found. Build it as described in shared/bench/README.md \
                 (text: apt-get download dict-* linux-doc-6.1 + make_text_corpus.py; logs: \
                 python3 shared/bench/gen_logs.py 2000000 /tmp/corpus/logs.ndjson 42), or set FATHOM_CORPUS_DIR.",
                path.display()
            );
            return None;
        };
        use std::io::BufRead;
        let lines: Vec<String> = std::io::BufReader::new(file)
            .lines()
            .take(n)
            .collect::<std::io::Result<_>>()
            .expect("corpus file is readable UTF-8");
        assert!(!lines.is_empty(), "{} is empty", path.display());
        Some(lines)
    }

    /// The OpenSearch mapping Fathom parses documents with (`dynamic: false`: the other corpus
    /// fields stay in `_source` only, as in the tantivy schema).
    pub fn mapping(self) -> Mapping {
        let m = match self {
            Corpus::Text => json!({"dynamic": false, "properties": {
                "title": {"type": "text"},
                "body": {"type": "text"},
                "id": {"type": "keyword"},
                "date": {"type": "date"}
            }}),
            Corpus::Logs => json!({"dynamic": false, "properties": {
                "@timestamp": {"type": "date", "format": "epoch_second"},
                "clientip": {"type": "ip"},
                "request": {"type": "text"},
                "status": {"type": "integer"},
                "size": {"type": "integer"}
            }}),
        };
        Mapping::from_json(&m).expect("the bench mappings are valid")
    }

    /// The same schema for tantivy; text fields use `tokenizer`.
    pub fn tantivy_schema(self, tokenizer: &str) -> Schema {
        let text = TextOptions::default().set_indexing_options(
            TextFieldIndexing::default()
                .set_tokenizer(tokenizer)
                .set_index_option(IndexRecordOption::WithFreqsAndPositions),
        );
        let date = DateOptions::from(INDEXED) | FAST;
        let mut b = Schema::builder();
        match self {
            Corpus::Text => {
                b.add_text_field("title", text.clone());
                b.add_text_field("body", text);
                b.add_text_field("id", STRING | FAST);
                b.add_date_field("date", date);
            }
            Corpus::Logs => {
                b.add_date_field("@timestamp", date);
                b.add_ip_addr_field("clientip", IpAddrOptions::from(INDEXED) | FAST);
                b.add_text_field("request", text);
                b.add_i64_field("status", NumericOptions::from(INDEXED) | FAST);
                b.add_i64_field("size", NumericOptions::from(INDEXED) | FAST);
            }
        }
        b.add_text_field("_source", STORED);
        b.build()
    }
}

/// Utime + stime of the whole process (every thread: tantivy indexes and merges on its own
/// threads) from `/proc/self/stat`, in clock ticks of 10 ms (`CLK_TCK` = 100 on Linux).
pub fn cpu_time() -> Duration {
    let stat = std::fs::read_to_string("/proc/self/stat").expect("/proc/self/stat is readable on Linux");
    // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
    let rest = &stat[stat.rfind(')').expect("stat has a command name") + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks: u64 = f[11].parse::<u64>().expect("utime") + f[12].parse::<u64>().expect("stime");
    Duration::from_millis(ticks * 10)
}

// ---------------------------------------------------------------------------------------------
// Fathom's standard analyzer as a tantivy tokenizer.

/// Runs Fathom's `standard` analyzer and replays its tokens to tantivy (term, byte offsets,
/// position), reusing its buffers between values.
#[derive(Clone, Default)]
pub struct FathomTokenizer {
    analyzer: StandardAnalyzer,
    terms: String,
    /// (term end in `terms`, start, end, position) per token.
    spans: Vec<(usize, usize, usize, usize)>,
    token: Token,
}

pub struct FathomTokenStream<'a> {
    t: &'a mut FathomTokenizer,
    next: usize,
}

impl Tokenizer for FathomTokenizer {
    type TokenStream<'a> = FathomTokenStream<'a>;
    fn token_stream<'a>(&'a mut self, text: &'a str) -> FathomTokenStream<'a> {
        let FathomTokenizer { analyzer, terms, spans, .. } = self;
        terms.clear();
        spans.clear();
        analyzer.analyze(text, 0, &mut |tok| {
            terms.push_str(tok.term);
            spans.push((terms.len(), tok.start, tok.end, tok.position as usize));
        });
        FathomTokenStream { t: self, next: 0 }
    }
}

impl TokenStream for FathomTokenStream<'_> {
    fn advance(&mut self) -> bool {
        let Some(&(end, from, to, position)) = self.t.spans.get(self.next) else { return false };
        let begin = if self.next == 0 { 0 } else { self.t.spans[self.next - 1].0 };
        self.next += 1;
        let tok = &mut self.t.token;
        tok.text.clear();
        tok.text.push_str(&self.t.terms[begin..end]);
        tok.offset_from = from;
        tok.offset_to = to;
        tok.position = position;
        tok.position_length = 1;
        true
    }
    fn token(&self) -> &Token {
        &self.t.token
    }
    fn token_mut(&mut self) -> &mut Token {
        &mut self.t.token
    }
}

// ---------------------------------------------------------------------------------------------
// Indexing on both sides.

/// Fathom's writer settings: default analyzers (`default` = `standard`), the shared budget.
pub fn fathom_config() -> IndexWriterConfig {
    IndexWriterConfig { ram_buffer_bytes: WRITER_BUDGET, ..IndexWriterConfig::default() }
}

/// Parses `line` with the mapping into a document with auto-generated id `n` (append: no lookup).
pub fn fathom_doc(mapping: &Mapping, n: usize, line: &str) -> Document {
    let id = n.to_string();
    let parsed = mapping.parse(&id, line.as_bytes()).expect("corpus lines parse with the bench mapping");
    assert!(parsed.mapping_update.is_none(), "dynamic: false never updates the mapping");
    // `fields` includes `_id`; the writer skips it and indexes `Document::id` (as the shard does).
    Document {
        id,
        routing: None,
        source: line.as_bytes().to_vec(),
        fields: parsed.fields,
        seq_no: n as i64,
        primary_term: 1,
        version: 1,
        nested: parsed.nested,
    }
}

/// Indexes `lines` into a new Fathom index in `dir` (refresh when the buffer is full, commit at
/// the end) and returns the writer.
pub fn fathom_index(dir: &Path, corpus: Corpus, lines: &[String]) -> IndexWriter {
    let mapping = corpus.mapping();
    let fs = FsDirectory::open(dir).expect("tempdir");
    let (w, _) = IndexWriter::open(Arc::new(fs), fathom_config()).expect("open writer");
    for (n, line) in lines.iter().enumerate() {
        w.append(&fathom_doc(&mapping, n, line)).expect("append");
        if n % 1024 == 1023 && w.buffer_full() {
            w.refresh().expect("refresh");
        }
    }
    w.commit(Default::default()).expect("commit");
    w
}

/// Which tokenizer tantivy's text fields use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TantivyTokens {
    /// Fathom's standard analyzer (identical terms to Fathom).
    Fathom,
    /// tantivy's `default` tokenizer (extra line, not comparable term for term).
    Default,
}

/// Builds a tantivy document from one corpus line (JSON parsing included).
pub fn tantivy_doc(schema: &Schema, corpus: Corpus, line: &str) -> TantivyDocument {
    let f = |name: &str| schema.get_field(name).expect("schema field");
    match corpus {
        Corpus::Text => {
            let mut d = TantivyDocument::parse_json(schema, line).expect("corpus line is valid for the schema");
            d.add_text(f("_source"), line);
            d
        }
        Corpus::Logs => {
            let v: Value = serde_json::from_str(line).expect("corpus line is JSON");
            let mut d = TantivyDocument::default();
            d.add_date(f("@timestamp"), DateTime::from_timestamp_secs(v["@timestamp"].as_i64().expect("@timestamp")));
            let ip: std::net::IpAddr = v["clientip"].as_str().expect("clientip").parse().expect("ip");
            let ip = match ip {
                std::net::IpAddr::V4(a) => a.to_ipv6_mapped(),
                std::net::IpAddr::V6(a) => a,
            };
            d.add_ip_addr(f("clientip"), ip);
            d.add_text(f("request"), v["request"].as_str().expect("request"));
            d.add_i64(f("status"), v["status"].as_i64().expect("status"));
            d.add_i64(f("size"), v["size"].as_i64().expect("size"));
            d.add_text(f("_source"), line);
            d
        }
    }
}

/// Indexes `lines` with one indexing thread into a new tantivy index in `dir`, commits and waits
/// for merges.
pub fn tantivy_index(dir: &Path, corpus: Corpus, lines: &[String], tokens: TantivyTokens) -> tantivy::Index {
    let tok_name = match tokens {
        TantivyTokens::Fathom => FATHOM_TOKENIZER,
        TantivyTokens::Default => "default",
    };
    let schema = corpus.tantivy_schema(tok_name);
    let index = tantivy::Index::create_in_dir(dir, schema.clone()).expect("create tantivy index");
    index.tokenizers().register(FATHOM_TOKENIZER, FathomTokenizer::default());
    let mut w: tantivy::IndexWriter = index.writer_with_num_threads(1, WRITER_BUDGET).expect("tantivy writer");
    for line in lines {
        w.add_document(tantivy_doc(&schema, corpus, line)).expect("add");
    }
    w.commit().expect("commit");
    w.wait_merging_threads().expect("merges");
    index
}

/// Both engines over the same sample, each force-merged to one segment.
pub struct Pair {
    pub _fathom_dir: tempfile::TempDir,
    pub _tantivy_dir: tempfile::TempDir,
    pub fathom: IndexWriter,
    pub tantivy: tantivy::Index,
    pub lines: usize,
}

/// Documents of the read-side benches: `$FATHOM_READ_DOCS`, default the whole corpus (as the
/// reference query figures).
pub fn read_docs() -> usize {
    std::env::var("FATHOM_READ_DOCS").ok().and_then(|v| v.parse().ok()).unwrap_or(usize::MAX)
}

pub fn build_pair(corpus: Corpus) -> Option<Pair> {
    let lines = corpus.load_n(read_docs())?;
    let t0 = std::time::Instant::now();
    let fd = tempfile::tempdir().expect("tempdir");
    let td = tempfile::tempdir().expect("tempdir");
    let fathom = fathom_index(fd.path(), corpus, &lines);
    fathom.force_merge(1).expect("force merge");
    let tantivy = tantivy_index(td.path(), corpus, &lines, TantivyTokens::Fathom);
    let ids = tantivy.searchable_segment_ids().expect("segments");
    if ids.len() > 1 {
        let mut w: tantivy::IndexWriter = tantivy.writer_with_num_threads(1, WRITER_BUDGET).expect("tantivy writer");
        w.merge(&ids).wait().expect("merge");
        w.wait_merging_threads().expect("merges");
    }
    let s = fathom.reader().expect("searcher");
    assert_eq!(s.leaves().len(), 1, "fathom force-merged to one segment");
    assert_eq!(s.num_docs(), lines.len() as u64);
    assert_eq!(tantivy.searchable_segment_ids().expect("segments").len(), 1, "tantivy merged to one segment");
    eprintln!(
        "built both {} indexes over {} docs, one segment each, in {:.1?}",
        corpus.name(),
        lines.len(),
        t0.elapsed()
    );
    Some(Pair { _fathom_dir: fd, _tantivy_dir: td, fathom, tantivy, lines: lines.len() })
}

/// `shared/bench/queries.json` (path from `$FATHOM_QUERIES`, default beside the project).
pub fn queries() -> Value {
    let path = std::env::var_os("FATHOM_QUERIES")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/bench/queries.json")));
    let path = if path.exists() { path } else { PathBuf::from("/work/shared/bench/queries.json") };
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).expect("queries.json is JSON")
}

/// The queries of one type (`term`, `and`, `or`, `phrase`, `date_range`).
pub fn queries_of(all: &Value, kind: &str) -> Vec<Value> {
    all["queries"].as_array().expect("queries array").iter().filter(|q| q["type"] == kind).cloned().collect()
}

/// The terms of a query.
pub fn terms_of(q: &Value) -> Vec<String> {
    q["terms"].as_array().expect("terms").iter().map(|t| t.as_str().expect("term").to_owned()).collect()
}
