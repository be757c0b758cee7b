//! The checkpoint (`translog.ckp`, and the frozen `translog-{gen}.ckp` copies): how far a
//! generation file is trusted, plus the sequence-number bookkeeping. Layout:
//! `format/translog-checkpoint.md`. Always verified in full before it is parsed.

use super::generation::HEADER_LEN as TLOG_HEADER_LEN;
use crate::engine::codec::header::footer_bytes;
use crate::engine::codec::{check_footer, check_header, write_header, ByteReader};
use crate::engine::store::{write_file, Directory};
use crate::engine::{Error, Result};

/// Codec name in the checkpoint header.
pub const CODEC: &str = "FathomCheckpoint";
/// Current checkpoint format version.
pub const VERSION: u32 = 1;
/// Bytes of the common header for this codec.
pub const HEADER_LEN: usize = 4 + 1 + CODEC.len() + 4 + 16;
/// Bytes of the eight fixed fields.
pub const FIELDS_LEN: usize = 8 * 8;
/// Total file length: header, fields, footer (121 bytes, far below one 512-byte sector).
pub const FILE_LEN: usize = HEADER_LEN + FIELDS_LEN + crate::engine::codec::FOOTER_LEN;

/// `seq_no` value of "no operation at all" (OpenSearch's `NO_OPS_PERFORMED`).
pub const NO_OPS_PERFORMED: i64 = -1;
/// `seq_no` value of "not set" (OpenSearch's `UNASSIGNED_SEQ_NO`).
pub const UNASSIGNED_SEQ_NO: i64 = -2;

/// The fields of a checkpoint file (see the format page for each one's meaning).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Checkpoint {
    /// End of the trusted (fsynced) bytes of generation `generation`.
    pub offset: u64,
    /// Operations in `[header end, offset)` of that generation.
    pub num_ops: u64,
    /// The generation this checkpoint describes.
    pub generation: u64,
    /// Smallest seq_no in the generation, or [`NO_OPS_PERFORMED`] when it has none.
    pub min_seq_no: i64,
    /// Largest seq_no in the generation, or [`NO_OPS_PERFORMED`] when it has none.
    pub max_seq_no: i64,
    /// The global checkpoint known when the checkpoint was written.
    pub global_checkpoint: i64,
    /// The oldest generation the translog still keeps.
    pub min_translog_generation: u64,
    /// Operations of this generation with a larger seq_no are ignored, or [`UNASSIGNED_SEQ_NO`].
    pub trimmed_above_seq_no: i64,
}

impl Checkpoint {
    /// The checkpoint of a generation that has no operation yet.
    pub fn empty(generation: u64, global_checkpoint: i64, min_translog_generation: u64) -> Checkpoint {
        Checkpoint {
            offset: TLOG_HEADER_LEN,
            num_ops: 0,
            generation,
            min_seq_no: NO_OPS_PERFORMED,
            max_seq_no: NO_OPS_PERFORMED,
            global_checkpoint,
            min_translog_generation,
            trimmed_above_seq_no: UNASSIGNED_SEQ_NO,
        }
    }

    /// The whole file image: header (id = translog uuid), fields, footer.
    pub fn to_bytes(&self, uuid: &[u8; 16]) -> Vec<u8> {
        let mut out = Vec::with_capacity(FILE_LEN);
        write_header(&mut out, CODEC, VERSION, uuid);
        for v in [self.offset, self.num_ops, self.generation] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        for v in [self.min_seq_no, self.max_seq_no, self.global_checkpoint] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.extend_from_slice(&self.min_translog_generation.to_le_bytes());
        out.extend_from_slice(&self.trimmed_above_seq_no.to_le_bytes());
        let crc = crc32fast::hash(&out);
        out.extend_from_slice(&footer_bytes(crc));
        debug_assert_eq!(out.len(), FILE_LEN);
        out
    }

    /// Verifies the whole file (footer CRC first, then header, then field invariants) and parses
    /// it. Every error names `file`.
    pub fn from_bytes(bytes: &[u8], file: &str, uuid: Option<&[u8; 16]>) -> Result<Checkpoint> {
        if bytes.len() != FILE_LEN {
            return Err(Error::corrupt(
                file,
                0,
                format!("checkpoint must be {FILE_LEN} bytes, found {} (truncated?)", bytes.len()),
            ));
        }
        let body = check_footer(bytes, file)?;
        let h = check_header(body, file, CODEC, VERSION, VERSION, uuid)?;
        let mut r = ByteReader::at(&body[h.len..], h.len as u64);
        let c = Checkpoint {
            offset: r.u64()?,
            num_ops: r.u64()?,
            generation: r.u64()?,
            min_seq_no: r.i64()?,
            max_seq_no: r.i64()?,
            global_checkpoint: r.i64()?,
            min_translog_generation: r.u64()?,
            trimmed_above_seq_no: r.i64()?,
        };
        c.validate().map_err(|reason| Error::corrupt(file, h.len as u64, reason))?;
        Ok(c)
    }

    /// The invariants every checkpoint satisfies.
    fn validate(&self) -> std::result::Result<(), String> {
        if self.offset < TLOG_HEADER_LEN {
            return Err(format!("offset {} is inside the generation header ({TLOG_HEADER_LEN} bytes)", self.offset));
        }
        if self.generation == 0 || self.min_translog_generation == 0 || self.min_translog_generation > self.generation {
            return Err(format!(
                "generations must satisfy 1 <= min_translog_generation ({}) <= generation ({})",
                self.min_translog_generation, self.generation
            ));
        }
        let empty = self.min_seq_no == NO_OPS_PERFORMED && self.max_seq_no == NO_OPS_PERFORMED;
        let ranged = 0 <= self.min_seq_no && self.min_seq_no <= self.max_seq_no;
        if (self.num_ops == 0 && !empty) || (self.num_ops > 0 && !ranged) {
            return Err(format!(
                "seq_no range [{}, {}] does not fit num_ops {}",
                self.min_seq_no, self.max_seq_no, self.num_ops
            ));
        }
        if self.num_ops > (self.offset - TLOG_HEADER_LEN) / super::generation::FRAME_OVERHEAD {
            return Err(format!("{} operations cannot fit in {} bytes", self.num_ops, self.offset));
        }
        if self.global_checkpoint < UNASSIGNED_SEQ_NO || self.trimmed_above_seq_no < UNASSIGNED_SEQ_NO {
            return Err(format!(
                "global_checkpoint ({}) and trimmed_above_seq_no ({}) must be >= -2",
                self.global_checkpoint, self.trimmed_above_seq_no
            ));
        }
        Ok(())
    }

    /// Whether an operation with this seq_no was trimmed away.
    pub fn is_trimmed(&self, seq_no: i64) -> bool {
        self.trimmed_above_seq_no != UNASSIGNED_SEQ_NO && seq_no > self.trimmed_above_seq_no
    }

    /// Reads and verifies a checkpoint file from `dir`; a missing file is a translog error that
    /// names it.
    pub fn read(dir: &dyn Directory, name: &str, uuid: &[u8; 16]) -> Result<Checkpoint> {
        let bytes = dir.open(name).map_err(|e| match e {
            Error::FileNotFound { .. } => {
                super::generation::corrupted(name, 0, "checkpoint file is missing but the translog needs it")
            }
            other => other,
        })?;
        Checkpoint::from_bytes(&bytes, name, Some(uuid))
    }

    /// Replaces `name` atomically and durably: write `name.tmp`, fsync, rename over `name`,
    /// fsync the directory. After a crash at any step `name` holds either the old or the new
    /// checkpoint, whole (crash analysis: `format/translog-checkpoint.md`).
    pub fn write_atomic(&self, dir: &dyn Directory, name: &str, uuid: &[u8; 16]) -> Result<()> {
        let tmp = format!("{name}.tmp");
        if dir.exists(&tmp) {
            dir.delete(&tmp)?;
        }
        write_file(dir, &tmp, &self.to_bytes(uuid))?;
        dir.rename(&tmp, name)?;
        dir.sync_dir()
    }
}
