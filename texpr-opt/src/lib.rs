//! Scheduling: maps typed TExpr onto grid, workgroup and thread levels (scheduled TExpr).
