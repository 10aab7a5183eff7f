//! Numbers as messages print them: a user reads `7.400e299 J`, not three hundred digits.
//!
//! Rust's `Display` for `f64` never switches to an exponent, so a blown-up energy or a
//! mistyped `1e300` in a scene would print in full. Every physical figure the CLI puts in a
//! message (summaries, warnings, refusals) goes through [`number`] instead.

/// Magnitudes below this print in scientific notation.
const SMALLEST_PLAIN: f64 = 1e-3;
/// Magnitudes from this up print in scientific notation.
const LARGEST_PLAIN: f64 = 1e6;
/// Significant digits of a plainly printed number.
const PLAIN_DIGITS: i32 = 6;

/// `x` for a message: zero as `0`; magnitudes in `[1e-3, 1e6)` plainly with up to six
/// significant digits and no trailing zeros (`9.81`, `-2`, `0.0166667`); others as
/// `{:.3e}` (`7.400e299`, `1.000e-5`); NaN and infinities as Rust writes them.
pub fn number(x: f64) -> String {
    if !x.is_finite() {
        return x.to_string();
    }
    if x == 0.0 {
        return "0".to_string();
    }
    let magnitude = x.abs();
    if !(SMALLEST_PLAIN..LARGEST_PLAIN).contains(&magnitude) {
        return format!("{x:.3e}");
    }
    let decimals = (PLAIN_DIGITS - 1 - magnitude.log10().floor() as i32).max(0) as usize;
    let text = format!("{x:.decimals$}");
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    }
}

/// A vector `[x, y, z]` with each component as [`number`] writes it.
pub fn vector(v: [f64; 3]) -> String {
    format!("[{}, {}, {}]", number(v[0]), number(v[1]), number(v[2]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moderate_numbers_print_plainly_and_extreme_ones_with_an_exponent() {
        assert_eq!(number(0.0), "0");
        assert_eq!(number(-0.0), "0");
        assert_eq!(number(-2.0), "-2");
        assert_eq!(number(1.5), "1.5");
        assert_eq!(number(9.81), "9.81");
        assert_eq!(number(1.0 / 60.0), "0.0166667");
        assert_eq!(number(14077.35), "14077.4");
        assert_eq!(number(999_999.0), "999999");
        assert_eq!(number(0.001), "0.001");
        assert_eq!(number(7.4e299), "7.400e299");
        assert_eq!(number(-1e-5), "-1.000e-5");
        assert_eq!(number(5e-8), "5.000e-8");
        assert_eq!(number(2e6), "2.000e6");
        assert_eq!(number(f64::NAN), "NaN");
        assert_eq!(number(f64::NEG_INFINITY), "-inf");
        assert_eq!(vector([0.0, 1e300, -0.5]), "[0, 1.000e300, -0.5]");
    }
}
