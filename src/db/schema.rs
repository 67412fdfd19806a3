// @generated automatically by Diesel CLI.

diesel::table! {
    audit_chain_heads (chain) {
        chain -> Text,
        last_seq -> Int8,
        last_hash -> Bytea,
    }
}

diesel::table! {
    audit_events (id) {
        id -> Int8,
        chain -> Text,
        seq -> Int8,
        at -> Timestamptz,
        actor_user_id -> Nullable<Int8>,
        actor_name -> Text,
        action -> Text,
        target -> Text,
        details -> Jsonb,
        client_addr -> Nullable<Text>,
        gaming_day -> Nullable<Date>,
        table_id -> Nullable<Int8>,
        prev_hash -> Bytea,
        hash -> Bytea,
    }
}

diesel::table! {
    sessions (id) {
        id -> Int8,
        key_hash -> Bytea,
        user_id -> Nullable<Int8>,
        state -> Jsonb,
        created_at -> Timestamptz,
        last_seen_at -> Timestamptz,
        expires_at -> Timestamptz,
    }
}

diesel::table! {
    users (id) {
        id -> Int8,
        username -> Text,
        display_name -> Text,
        role -> Text,
        password_hash -> Text,
        failed_attempts -> Int4,
        locked_at -> Nullable<Timestamptz>,
        disabled_at -> Nullable<Timestamptz>,
        must_change_password -> Bool,
        created_at -> Timestamptz,
        updated_at -> Timestamptz,
    }
}

diesel::joinable!(sessions -> users (user_id));

diesel::allow_tables_to_appear_in_same_query!(audit_chain_heads, audit_events, sessions, users,);
