//! `pgs` on arbitrary finite boxed LCPs (see `stiction_fuzz::decode`): no panic, and a
//! `Solved` report only for a finite answer that passes the solver's own rule.

#![no_main]

use libfuzzer_sys::fuzz_target;
use stiction_fuzz::check::{check_pgs, PGS_VARIANTS};
use stiction_fuzz::decode::{boxed_problem, Bytes};

fuzz_target!(|data: &[u8]| {
    let mut bytes = Bytes::new(data);
    let variant = bytes.below(PGS_VARIANTS);
    let problem = boxed_problem(&mut bytes, false);
    stiction_fuzz::dump(&problem, variant);
    check_pgs(&problem, variant);
});
