//! Tests of the IR's toolkit (`texpr_ir`) on programs the front end checks.

mod build;
mod share;
