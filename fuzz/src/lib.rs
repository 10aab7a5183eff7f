//! Shared code of the fuzz targets: [`decode`] turns bytes into hard problems, [`check`]
//! holds the properties every solver must keep (also used by the LCP crate's regression
//! test on the committed corpus).

pub mod check;
pub mod decode;

use std::io::Write;
use std::sync::OnceLock;

use stiction_lcp::json::to_json;
use stiction_lcp::BoxedLcp;

/// When the environment variable `STICTION_FUZZ_DUMP` is set, writes the decoded problem as
/// a JSON problem file to standard error, so that a crashing input can be turned into a
/// readable regression case (`crates/lcp/tests/fuzz_corpus/`):
///
/// ```sh
/// STICTION_FUZZ_DUMP=1 cargo fuzz run dantzig fuzz/artifacts/dantzig/crash-... 2> case.txt
/// ```
pub fn dump(problem: &BoxedLcp, variant: usize) {
    static ENABLED: OnceLock<bool> = OnceLock::new();
    if *ENABLED.get_or_init(|| std::env::var_os("STICTION_FUZZ_DUMP").is_some()) {
        let _ = writeln!(std::io::stderr(), "variant {variant}\n{}", to_json(problem));
    }
}
