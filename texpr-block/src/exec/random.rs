//! Random matrices made element by element from a seed and a position, so
//! that every rank makes its own tiles of the same matrix.

/// Element `(i, j)` of the random matrix seeded with `seed`: a value in
/// `[-1, 1)` computed from the three numbers alone (splitmix64).
pub fn random_element(seed: u64, i: usize, j: usize) -> f32 {
    let key = splitmix(seed)
        ^ (i as u64).wrapping_mul(0xD1B5_4A32_D192_ED03)
        ^ (j as u64).wrapping_mul(0xABC9_8388_FB8F_AC03);
    let bits = splitmix(key) >> 40;
    (bits as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
}

fn splitmix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}
