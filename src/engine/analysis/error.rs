//! The error of building analysis components from settings and of `_analyze`: OpenSearch's
//! exception type and reason, so the server can render them unchanged.

use crate::error::ErrorKind;
use std::fmt;

/// An analysis error as OpenSearch reports it: `{"type": kind, "reason": reason}`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AnalysisError {
    /// The exception type, such as `illegal_argument_exception`.
    pub kind: ErrorKind,
    /// The message, word for word OpenSearch's.
    pub reason: String,
}

impl AnalysisError {
    /// An `illegal_argument_exception` (bad settings, unknown names).
    pub fn illegal_argument(reason: impl Into<String>) -> Self {
        AnalysisError { kind: ErrorKind::IllegalArgument, reason: reason.into() }
    }
    /// An `illegal_state_exception` (the token limit of `_analyze`).
    pub fn illegal_state(reason: impl Into<String>) -> Self {
        AnalysisError { kind: ErrorKind::IllegalState, reason: reason.into() }
    }
    /// An `action_request_validation_exception` with one numbered error, as OpenSearch's
    /// `ActionRequestValidationException` prints it.
    pub fn validation(error: &str) -> Self {
        AnalysisError { kind: ErrorKind::ActionRequestValidation, reason: format!("Validation Failed: 1: {error};") }
    }
}

impl fmt::Display for AnalysisError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.kind, self.reason)
    }
}

impl std::error::Error for AnalysisError {}
