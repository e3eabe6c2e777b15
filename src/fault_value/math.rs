//! The logarithm, exponential and cosine the lognormal latency needs, in a few lines each: the
//! platform's (musl's libm) cost 20 KB of tables and code in a static binary, for a delay in
//! whole milliseconds where a relative error of 1e-9 is far below the rounding.

/// `ln(x)` for a finite `x > 0` (no subnormals: canned's arguments are at least 2^-54).
/// With `x = 2^e * m`, `m` in `[sqrt(1/2), sqrt(2))` and `s = (m - 1) / (m + 1)`:
/// `ln(m) = 2 atanh(s) = 2 (s + s^3/3 + s^5/5 + ...)`, `|s| < 0.172`, seven terms
/// for a relative error below 1e-12.
pub(crate) fn ln(x: f64) -> f64 {
    let bits = x.to_bits();
    let mut e = ((bits >> 52) & 0x7ff) as i64 - 1023;
    let mut m = f64::from_bits((bits & ((1 << 52) - 1)) | (1023 << 52));
    if m > std::f64::consts::SQRT_2 {
        m *= 0.5;
        e += 1;
    }
    let s = (m - 1.0) / (m + 1.0);
    let s2 = s * s;
    let mut series = 1.0 / 13.0;
    for k in [11.0, 9.0, 7.0, 5.0, 3.0, 1.0] {
        series = series * s2 + 1.0 / k;
    }
    e as f64 * std::f64::consts::LN_2 + 2.0 * s * series
}

/// `exp(x)`, clamped to `[-700, 700]` (beyond it a delay in ms is 0 or saturates anyway).
/// With `x = k ln 2 + r`, `|r| <= ln(2)/2`: `exp(x) = 2^k exp(r)`, `exp(r)` from its Taylor
/// series to `r^13/13!` (relative error below 1e-15).
pub(crate) fn exp(x: f64) -> f64 {
    let x = x.clamp(-700.0, 700.0);
    let t = x * std::f64::consts::LOG2_E;
    // Round to nearest without `f64::round` (a libm call on baseline x86_64).
    let k = (t + if t < 0.0 { -0.5 } else { 0.5 }) as i64;
    let r = x - k as f64 * std::f64::consts::LN_2;
    let mut sum = 1.0;
    for n in (1..=13).rev() {
        sum = 1.0 + sum * r / f64::from(n);
    }
    sum * f64::from_bits(((k + 1023) as u64) << 52)
}

/// `cos(2 pi u)` for `u` in `[0, 1]`: `-cos(y)` with `y = 2 pi u - pi` in `[-pi, pi]`, from
/// its Taylor series to `y^22/22!` (error below 1e-10).
pub(crate) fn cos_turns(u: f64) -> f64 {
    let y = std::f64::consts::TAU * u - std::f64::consts::PI;
    let y2 = y * y;
    let mut sum = 1.0;
    for n in (1..=11).rev() {
        sum = 1.0 - sum * y2 / f64::from((2 * n - 1) * (2 * n));
    }
    -sum
}
