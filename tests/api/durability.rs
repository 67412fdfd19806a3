use pusoy_pit::db::embedded;

use crate::helpers::cluster;

#[test]
fn the_private_cluster_acknowledges_a_commit_only_once_it_is_on_disk() {
    let mut conn = cluster().connect("postgres").unwrap();
    assert_eq!(
        embedded::not_durable(&mut conn).unwrap(),
        Vec::<String>::new()
    );
}

#[tokio::test]
async fn only_the_test_suite_s_own_connections_commit_without_waiting_for_the_disk() {
    let app = crate::helpers::spawn_app().await;
    let off = embedded::not_durable(&mut app.conn()).unwrap();
    assert_eq!(off, vec!["synchronous_commit=off".to_owned()]);
}
