//! Feeds arbitrary bytes to the form decoder the app runs on every form body before a handler
//! (`web::forms::first_control_character`). Run by hand: `cargo +nightly fuzz run form_decoder`.
//! Must never panic; a body it passes holds no control character but tab and line breaks.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pusoy_pit::web::forms::first_control_character;

fuzz_target!(|data: &[u8]| {
    if first_control_character(data).is_none() {
        if let Ok(fields) = serde_urlencoded::from_bytes::<Vec<(String, String)>>(data) {
            for (name, value) in fields {
                assert!(name
                    .chars()
                    .chain(value.chars())
                    .all(|c| !c.is_control() || matches!(c, '\t' | '\n' | '\r')));
            }
        }
    }
});
