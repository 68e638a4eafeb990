//! The library's enums as values of flags. Below the command line each is listed
//! (`ALL`) and named (`name`) by plain code; here it becomes clap's `ValueEnum`, with
//! the help each value shows in `--help` and the manual. A value added to an enum fails
//! to compile here until it has its help, and a test holds `ALL` to the values named
//! here, so that no value is left out of the command line. Engines are not here: their
//! values and help come from the engines' own registration (`bench::engine::ALL`,
//! parsed in `cli::values`).

use clap::ValueEnum;
use clap::builder::PossibleValue;

use crate::compare::GroupBy;
use crate::model::{CacheMode, RoundOrder};
use crate::shell::ColorChoice;
use crate::units::RateUnit;

/// `impl ValueEnum` from the enum's `ALL` and `name`, each value with its help (or
/// none), in the order of `ALL`; `listed` is every value named here, for the test.
macro_rules! value_enum {
    ($listed:ident: $type:ident { $($value:ident $(=> $help:literal)?),+ $(,)? }) => {
        impl ValueEnum for $type {
            fn value_variants<'a>() -> &'a [Self] {
                &$type::ALL
            }

            fn to_possible_value(&self) -> Option<PossibleValue> {
                let value = PossibleValue::new(self.name());
                Some(match self {
                    $($type::$value => value $(.help($help))?,)+
                })
            }
        }

        #[cfg(test)]
        const $listed: &[$type] = &[$($type::$value),+];
    };
}

value_enum!(CACHES: CacheMode {
    Flush => "writes include fdatasync in their time; cold reads start with the file evicted",
    Buffered => "through the page cache, nothing forced (iozone3's default)",
    Direct => "O_DIRECT: around the page cache",
    Sync => "O_SYNC: every write durable before it returns",
});

value_enum!(ORDERS: RoundOrder {
    Interleaved => "each round visits every (file size, record size) cell once, in a seeded \
                    random order, so a slow minute of the machine spreads over all cells",
    Grouped => "a cell's repetitions back to back (runs recorded before rounds existed)",
});

value_enum!(UNITS: RateUnit {
    Bytes => "bytes/s, like the classic table",
    KiB => "KiB/s, like iozone3's kB/s",
    MiB => "MiB/s",
    GiB => "GiB/s",
    Auto => "the largest unit that keeps every figure of a table at 1 or more",
});

value_enum!(GROUPINGS: GroupBy { Host, Fs, Kernel });

value_enum!(COLORS: ColorChoice { Auto, Always, Never });

#[cfg(test)]
mod tests {
    use super::*;

    /// `ALL` lists every value (the match above names each, or fails to compile), in
    /// the order `--help` shows them, and each name parses back to its value.
    #[test]
    fn every_value_is_listed_and_parses_back() {
        fn check<T: ValueEnum + PartialEq + std::fmt::Debug>(all: &[T], listed: &[T]) {
            assert_eq!(all, listed);
            for value in all {
                let name = value.to_possible_value().unwrap();
                let parsed = T::from_str(name.get_name(), false).unwrap();
                assert_eq!(&parsed, value);
            }
        }
        check(&CacheMode::ALL, CACHES);
        check(&RoundOrder::ALL, ORDERS);
        check(&RateUnit::ALL, UNITS);
        check(&GroupBy::ALL, GROUPINGS);
        check(&ColorChoice::ALL, COLORS);
    }
}
