//! Feeds arbitrary text to the round parser and settlement (`pusoy-pit settle`'s per-line work).
//! Run by hand: `cargo +nightly fuzz run round_parser` from the repository top.
//! Must never panic; a round that settles must balance to zero.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pusoy_pit::rules::wire::settle_json;

fuzz_target!(|data: &[u8]| {
    let Ok(line) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(settlement) = settle_json(line) {
        let seats: i64 = settlement.seats.iter().map(|s| s.result.minor_units()).sum();
        assert_eq!(seats + settlement.dealer.result.minor_units(), 0);
    }
});
