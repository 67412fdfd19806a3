//! Runs the built `pusoy-pit` binary as pit staff and auditors do.

use std::io::Write;
use std::process::{Command, Stdio};

fn run(args: &[&str], stdin: &str) -> (String, String, Option<i32>) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_pusoy-pit"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    child
        .stdin
        .take()
        .expect("stdin is piped")
        .write_all(stdin.as_bytes())
        .expect("stdin accepts the rounds");
    let output = child.wait_with_output().expect("the binary finishes");
    (
        String::from_utf8(output.stdout).expect("utf-8 stdout"),
        String::from_utf8(output.stderr).expect("utf-8 stderr"),
        output.status.code(),
    )
}

const GOOD: &str = r#"{"dealer": {"back": "As Ks Qs Js Ts", "middle": "6c 6s 6h 9h 9d", "front": "Ad Kd 2h"}, "seats": [{"seat": 1, "bet": 100, "back": "2c 2d 5h 7s 9c", "middle": "3c 3d 4h 8s Tc", "front": "Ah Kh Qh"}, {"seat": 2, "bet": 50, "action": "surrender"}]}"#;

#[test]
fn settle_answers_every_line_in_order_and_fails_when_one_line_is_bad() {
    let good = GOOD
        .replace("2c 2d", "2s 2d")
        .replace("3c 3d 4h", "3c 3d 4d");
    let input = format!("{good}\nnot json\n{good}\n");
    let (stdout, _, status) = run(&["settle"], &input);
    let lines: Vec<serde_json::Value> = stdout
        .lines()
        .map(|line| serde_json::from_str(line).expect("every output line is JSON"))
        .collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[0], lines[2]);
    assert!(lines[1]["error"]
        .as_str()
        .expect("an error message")
        .starts_with("line 2: "));
    let seat = &lines[0]["seats"][0];
    assert_eq!(seat["outcome"], "played");
    assert_eq!(seat["fouled"], true);
    assert_eq!(
        seat["foul"],
        "middle (pair of threes) ranks above back (pair of twos)"
    );
    assert_eq!(seat["result"], -200);
    assert!(seat.get("hands_won").is_none());
    assert_eq!(
        lines[0]["seats"][1],
        serde_json::json!({"seat": 2, "outcome": "surrendered", "result": -50})
    );
    assert_eq!(lines[0]["dealer"]["result"], 250);
    assert_eq!(
        lines[0]["dealer"]["hands"]["back"],
        "straight flush, ace high"
    );
    assert_eq!(status, Some(1));
}

#[test]
fn settle_exits_zero_when_every_line_settles() {
    let (stdout, _, status) = run(&["settle"], &format!("{GOOD}\n"));
    assert_eq!(stdout.lines().count(), 1);
    assert_eq!(status, Some(0));
}

#[test]
fn eval_names_a_hand() {
    let cases = [
        (
            vec!["eval", "5d", "4c", "3h", "2s", "Ac"],
            "straight, five high\n",
        ),
        (vec!["eval", "Qh,Qs,7d"], "pair of queens, seven kicker\n"),
        (
            vec!["eval", "Kc", "Kd", "Kh", "4s", "4c"],
            "full house, kings over fours\n",
        ),
    ];
    for (args, name) in cases {
        let (stdout, _, status) = run(&args, "");
        assert_eq!((stdout.as_str(), status), (name, Some(0)), "{args:?}");
    }
    let (_, stderr, status) = run(&["eval", "As", "1x", "Qs"], "");
    assert_eq!(status, Some(1));
    assert!(stderr.contains("card 2 `1x`"), "{stderr}");
}

/// The issue's example: a played seat, a dragon, a surrender and a seat without an action.
const POINTS: &str = r#"{"game": "points", "unit": 100, "rules": {"scoop_bonus": 3}, "seats": [{"seat": 1, "action": "play", "back": "8c 9c Jc Qc Kc", "middle": "2s 3s 4s 6s 7s", "front": "9h Th Jh"}, {"seat": 2, "action": "natural", "natural": "dragon", "dealt": "2c 3d 4h 5s 6c 7d 8h 9s Tc Jd Qh Ks Ac"}, {"seat": 3, "action": "surrender"}, {"seat": 4, "back": "9d Td Qd Kd Ad", "middle": "8s Ts Js Qs 8d", "front": "5h Kh Ah"}]}"#;

#[test]
fn settle_takes_points_rounds_in_the_same_stream_as_banking_rounds() {
    let named_banking = GOOD.replacen('{', r#"{"game": "banking", "#, 1);
    let unknown_field = POINTS.replace(r#""seat": 3, "#, r#""seat": 3, "bet": 5, "#);
    let input = format!("{GOOD}\n{POINTS}\n{named_banking}\n{unknown_field}\n");
    let (stdout, _, status) = run(&["settle"], &input);
    let lines: Vec<serde_json::Value> = stdout
        .lines()
        .map(|line| serde_json::from_str(line).expect("every output line is JSON"))
        .collect();
    assert_eq!(lines.len(), 4);
    assert_eq!(lines[0], lines[2], "a banking round may name its game");
    assert_eq!(
        lines[1],
        serde_json::json!({
            "seats": [
                {"seat": 1, "outcome": "played", "fouled": false, "points": -11, "result": -1100,
                 "against": {"2": -13, "3": 3, "4": -1},
                 "hands": {"back": "flush, king-queen-jack-nine-eight",
                           "middle": "flush, seven-six-four-three-two",
                           "front": "high card, jack-ten-nine"}},
                {"seat": 2, "outcome": "natural", "natural": "dragon", "points": 39,
                 "result": 3900, "against": {"1": 13, "3": 13, "4": 13}},
                {"seat": 3, "outcome": "surrendered", "points": -19, "result": -1900,
                 "against": {"1": -3, "2": -13, "4": -3}},
                {"seat": 4, "outcome": "played", "fouled": false, "points": -9, "result": -900,
                 "against": {"1": 1, "2": -13, "3": 3},
                 "hands": {"back": "flush, ace-king-queen-ten-nine",
                           "middle": "pair of eights, queen-jack-ten kickers",
                           "front": "high card, ace-king-five"}},
            ],
            "pusoy": null,
        })
    );
    let error = lines[3]["error"].as_str().expect("an error message");
    assert!(
        error.starts_with("line 4: not a round: unknown field `bet`"),
        "{error}"
    );
    assert_eq!(status, Some(1));
}
