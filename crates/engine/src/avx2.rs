//! The step's hot code compiled twice, for the x86-64 baseline and for AVX2, the copy
//! chosen at run time (docs/performance.md#the-step-compiled-for-avx2).
//!
//! With AVX2 enabled the compiler writes three-operand (VEX) instructions, which drop the
//! register copies two-operand SSE code needs, and vectorises some loops four wide. The
//! results do not change: AVX2 brings no fused multiply-add (that is the separate `fma`
//! feature, never enabled here), and the compiler does not reorder floating-point
//! arithmetic, so every operation rounds as in the baseline copy. A binary built for the
//! baseline therefore still runs on every x86-64 processor, and steps bit for bit alike on
//! all of them.

/// Defines `fn $name(args) -> R` that runs `$body(args)` (an `#[inline(always)]` function)
/// compiled for AVX2 where the processor has it (detected at run time, a cached check),
/// else compiled for the baseline. Only code inlined into `$body` gets the AVX2 copy: the
/// functions it calls that are not inlined run their baseline code, so the large ones it
/// alone calls are `#[inline(always)]` as well.
macro_rules! compiled_for_avx2 {
    (
        $(#[$meta:meta])*
        $vis:vis fn $name:ident($($arg:ident: $ty:ty),* $(,)?) -> $ret:ty => $body:path
    ) => {
        $(#[$meta])*
        #[allow(clippy::too_many_arguments)]
        $vis fn $name($($arg: $ty),*) -> $ret {
            #[cfg(target_arch = "x86_64")]
            {
                #[target_feature(enable = "avx2")]
                #[allow(clippy::too_many_arguments)]
                fn avx2($($arg: $ty),*) -> $ret {
                    $body($($arg),*)
                }
                let avx2_present = std::arch::is_x86_feature_detected!("avx2");
                if avx2_present && !$crate::avx2::baseline_only() {
                    // SAFETY: AVX2 was detected on this processor just above.
                    return unsafe { avx2($($arg),*) };
                }
            }
            $body($($arg),*)
        }
    };
}

pub(crate) use compiled_for_avx2;

/// Whether the unit tests asked for the baseline copies ([`BASELINE_ONLY`]); always
/// `false` outside them.
#[inline(always)]
pub(crate) fn baseline_only() -> bool {
    #[cfg(test)]
    return BASELINE_ONLY.load(std::sync::atomic::Ordering::Relaxed);
    #[cfg(not(test))]
    false
}

/// Set by a unit test (`scenes::tests`) to run the baseline copies on a processor with
/// AVX2, and the solve's row terms row by row rather than in AVX2 lanes
/// (`crate::solver::sparse::compute_solve_terms`), so that the two kinds of steps can be
/// compared. Other tests running meanwhile take
/// the baseline copies too, which by the claim under test changes none of their answers.
#[cfg(test)]
pub(crate) static BASELINE_ONLY: std::sync::atomic::AtomicBool =
    std::sync::atomic::AtomicBool::new(false);
