//! `mlcp` (reduction plus Lemke) on arbitrary finite mixed LCPs: the decoder's first `nub`
//! rows are the free block. No panic, and `Solved` only with a finite `u` and a `y` that
//! solves the reduced LCP.

#![no_main]

use libfuzzer_sys::fuzz_target;
use stiction_fuzz::check::{check_mlcp, mixed_reading, MLCP_VARIANTS};
use stiction_fuzz::decode::{boxed_problem, Bytes};

fuzz_target!(|data: &[u8]| {
    let mut bytes = Bytes::new(data);
    let variant = bytes.below(MLCP_VARIANTS);
    let problem = boxed_problem(&mut bytes, false);
    stiction_fuzz::dump(&problem, variant);
    check_mlcp(&mixed_reading(&problem), variant);
});
