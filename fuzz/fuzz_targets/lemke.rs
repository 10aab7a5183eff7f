//! `lemke` on arbitrary finite standard LCPs `w = M z + q` (the decoder's `a` and `b`, as a
//! problem file reads for Lemke): no panic, and `Solved` only for a finite answer whose
//! residual passes Lemke's rule.

#![no_main]

use libfuzzer_sys::fuzz_target;
use stiction_fuzz::check::{check_lemke, standard_reading, LEMKE_VARIANTS};
use stiction_fuzz::decode::{boxed_problem, Bytes};

fuzz_target!(|data: &[u8]| {
    let mut bytes = Bytes::new(data);
    let variant = bytes.below(LEMKE_VARIANTS);
    let problem = boxed_problem(&mut bytes, false);
    stiction_fuzz::dump(&problem, variant);
    check_lemke(&standard_reading(&problem), variant);
});
