//! The order in which a test visits the records of a file, computed per operation in
//! constant memory: a 1 GiB file of 512 B records must not need a 16 MiB index table.

/// An access order over the records `0..n` of a file.
#[derive(Clone, Debug)]
pub enum Order {
    Sequential,
    Backward,
    /// Every record once, in a seeded pseudo-random order.
    Random(Permutation),
    /// `i * stride mod n`, with the stride made coprime with `n` so every record is read.
    Stride(u64),
    /// The same record (the first) every time: iozone3's record rewrite.
    Same,
}

impl Order {
    pub fn stride(requested: u64, n: u64) -> Order {
        if n <= 1 {
            return Order::Sequential;
        }
        let mut stride = requested.max(1) % n;
        while stride == 0 || gcd(stride, n) != 1 {
            stride = (stride + 1) % n;
        }
        Order::Stride(stride)
    }

    /// Whether the order visits a record more than once: two writes of one record in
    /// flight together could land in either order, so a queued engine keeps one.
    pub fn revisits(&self) -> bool {
        matches!(self, Order::Same)
    }

    /// The record visited by operation `i` of `n`.
    #[inline]
    pub fn record(&self, i: u64, n: u64) -> u64 {
        match self {
            Order::Sequential => i,
            Order::Backward => n - 1 - i,
            Order::Random(p) => p.apply(i),
            Order::Stride(s) => ((i as u128 * *s as u128) % n as u128) as u64,
            Order::Same => 0,
        }
    }
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// A seeded bijection on `0..n`: a four-round Feistel network on the smallest
/// even-bit-width domain holding `n`, with cycle walking back into range.
#[derive(Clone, Debug)]
pub struct Permutation {
    n: u64,
    half_bits: u32,
    mask: u64,
    keys: [u64; 4],
}

impl Permutation {
    pub fn new(n: u64, seed: u64) -> Self {
        let bits = 64 - n.saturating_sub(1).leading_zeros();
        let half_bits = bits.div_ceil(2).max(1);
        let mut state = seed;
        let keys = [(); 4].map(|_| {
            state = splitmix64(state);
            state
        });
        Permutation {
            n,
            half_bits,
            mask: (1u64 << half_bits) - 1,
            keys,
        }
    }

    #[inline]
    fn round_trip(&self, x: u64) -> u64 {
        let (mut left, mut right) = (x >> self.half_bits, x & self.mask);
        for key in self.keys {
            let f = splitmix64(right ^ key) & self.mask;
            (left, right) = (right, left ^ f);
        }
        (left << self.half_bits) | right
    }

    #[inline]
    pub fn apply(&self, i: u64) -> u64 {
        let mut x = self.round_trip(i);
        while x >= self.n {
            x = self.round_trip(x);
        }
        x
    }
}

#[inline]
fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::DEFAULT_STRIDE;

    fn visits(order: &Order, n: u64) -> Vec<u64> {
        (0..n).map(|i| order.record(i, n)).collect()
    }

    fn is_permutation(mut v: Vec<u64>) -> bool {
        let n = v.len() as u64;
        v.sort_unstable();
        v == (0..n).collect::<Vec<_>>()
    }

    #[test]
    fn random_visits_every_record_once() {
        for n in [1, 2, 3, 7, 64, 1000, 65536, 100_003] {
            let order = Order::Random(Permutation::new(n, 99));
            assert!(is_permutation(visits(&order, n)), "n = {n}");
        }
    }

    #[test]
    fn random_order_depends_on_the_seed_and_is_not_sequential() {
        let n = 4096;
        let a = visits(&Order::Random(Permutation::new(n, 1)), n);
        let b = visits(&Order::Random(Permutation::new(n, 1)), n);
        let c = visits(&Order::Random(Permutation::new(n, 2)), n);
        assert_eq!(a, b);
        assert_ne!(a, c);
        let in_place = a
            .iter()
            .enumerate()
            .filter(|(i, r)| *i as u64 == **r)
            .count();
        assert!(in_place < 20, "{in_place} records in sequential position");
        let ascending = a.windows(2).filter(|w| w[1] == w[0] + 1).count();
        assert!(ascending < 20, "{ascending} sequential steps");
    }

    #[test]
    fn stride_visits_every_record_once() {
        for n in [1, 2, 17, 34, 64, 1000, 4096] {
            let order = Order::stride(DEFAULT_STRIDE, n);
            assert!(is_permutation(visits(&order, n)), "n = {n}");
        }
        assert!(matches!(Order::stride(17, 4096), Order::Stride(17)));
        assert_eq!(visits(&Order::stride(17, 64), 64)[..3], [0, 17, 34]);
    }

    #[test]
    fn backward_and_same() {
        assert_eq!(visits(&Order::Backward, 4), [3, 2, 1, 0]);
        assert_eq!(visits(&Order::Same, 3), [0, 0, 0]);
        assert!(Order::Same.revisits());
        for order in [Order::Sequential, Order::Backward, Order::stride(17, 64)] {
            assert!(!order.revisits());
        }
        assert!(!Order::Random(Permutation::new(64, 1)).revisits());
    }
}
