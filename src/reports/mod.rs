//! What reads many rows and never writes: exports that verify offline.

pub mod export;
