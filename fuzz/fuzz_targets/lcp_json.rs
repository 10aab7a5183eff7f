//! Arbitrary bytes as a problem file: reading must not panic, a valid file must write back
//! to the same problem, and both of its readings go to every solver (default options).

#![no_main]

use libfuzzer_sys::fuzz_target;
use stiction_fuzz::check::{check_defaults, check_json};

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        check_json(text, check_defaults);
    }
});
