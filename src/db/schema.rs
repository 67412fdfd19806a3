// @generated automatically by Diesel CLI.

diesel::table! {
    api_tokens (id) {
        id -> Int8,
        name -> Text,
        user_id -> Int8,
        token_hash -> Bytea,
        created_by -> Int8,
        created_at -> Timestamptz,
        revoked_at -> Nullable<Timestamptz>,
        expires_at -> Nullable<Timestamptz>,
        prefix -> Text,
    }
}

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
        details -> Json,
        client_addr -> Nullable<Text>,
        gaming_day -> Nullable<Date>,
        table_id -> Nullable<Int8>,
        prev_hash -> Bytea,
        hash -> Bytea,
    }
}

diesel::table! {
    buy_in_attributions (buy_in_id) {
        buy_in_id -> Int8,
        player_id -> Int8,
        rating_id -> Int8,
        observation_id -> Int8,
        gaming_day -> Date,
        attributed_by -> Int8,
        attributed_at -> Timestamptz,
    }
}

diesel::table! {
    buy_in_voids (buy_in_id) {
        buy_in_id -> Int8,
        reason -> Text,
        voided_by -> Int8,
        voided_at -> Timestamptz,
    }
}

diesel::table! {
    buy_ins (id) {
        id -> Int8,
        table_id -> Int8,
        gaming_day -> Date,
        shift_id -> Nullable<Int8>,
        seat -> Int2,
        kind -> Text,
        currency -> Text,
        amount -> Int8,
        recorded_by -> Int8,
        created_at -> Timestamptz,
        player_id -> Nullable<Int8>,
    }
}

diesel::table! {
    cage_cash (id) {
        id -> Int8,
        gaming_day -> Date,
        direction -> Text,
        currency -> Text,
        amount -> Int8,
        player_id -> Nullable<Int8>,
        note -> Text,
        recorded_by -> Int8,
        created_at -> Timestamptz,
    }
}

diesel::table! {
    cage_cash_voids (cage_cash_id) {
        cage_cash_id -> Int8,
        reason -> Text,
        voided_by -> Int8,
        voided_at -> Timestamptz,
    }
}

diesel::table! {
    cage_slip_numbers (kind, year) {
        kind -> Text,
        year -> Int4,
        last_number -> Int4,
    }
}

diesel::table! {
    cage_slip_prints (id) {
        id -> Int8,
        slip_id -> Int8,
        copy_number -> Int4,
        printed_by -> Int8,
        at -> Timestamptz,
    }
}

diesel::table! {
    cage_slip_steps (id) {
        id -> Int8,
        slip_id -> Int8,
        step -> Text,
        signed_by -> Int8,
        second_signed_by -> Nullable<Int8>,
        reason -> Nullable<Text>,
        at -> Timestamptz,
    }
}

diesel::table! {
    cage_slips (id) {
        id -> Int8,
        kind -> Text,
        year -> Int4,
        number -> Int4,
        table_id -> Int8,
        gaming_day -> Date,
        chip_set_version_id -> Int8,
        counts -> Array<Nullable<Int8>>,
        total -> Int8,
        created_at -> Timestamptz,
    }
}

diesel::table! {
    chip_set_versions (id) {
        id -> Int8,
        chip_set_id -> Int8,
        version -> Int4,
        denominations -> Array<Nullable<Int8>>,
        created_by -> Nullable<Int8>,
        created_at -> Timestamptz,
    }
}

diesel::table! {
    chip_sets (id) {
        id -> Int8,
        currency -> Text,
        created_at -> Timestamptz,
    }
}

diesel::table! {
    closed_day_drop_sums (id) {
        id -> Int8,
        gaming_day -> Date,
        table_id -> Int8,
        shift_id -> Nullable<Int8>,
        cash -> Int8,
        non_cash -> Int8,
        fees -> Int8,
    }
}

diesel::table! {
    closed_day_round_sums (gaming_day, table_id, shift_id) {
        gaming_day -> Date,
        table_id -> Int8,
        shift_id -> Int8,
        house -> Int8,
        rounds -> Int8,
        void_rounds -> Int8,
        pending -> Int8,
        points_game -> Bool,
    }
}

diesel::table! {
    closed_table_days (gaming_day, table_id) {
        gaming_day -> Date,
        table_id -> Int8,
        points_game -> Bool,
        opener -> Nullable<Int8>,
        closer -> Nullable<Int8>,
        held -> Bool,
        fills -> Int8,
        credits -> Int8,
        cage_open -> Int8,
        bought_cash -> Int8,
        bought_non_cash -> Int8,
        fees -> Int8,
        house -> Int8,
        rounds -> Int8,
        void_rounds -> Int8,
        pending -> Int8,
    }
}

diesel::table! {
    comp_rules (id) {
        id -> Int8,
        basis_points -> Int4,
        from_day -> Date,
        set_by -> Nullable<Int8>,
        set_at -> Timestamptz,
    }
}

diesel::table! {
    compliance_cases (id) {
        id -> Int8,
        kind -> Text,
        gaming_day -> Date,
        first_day -> Date,
        player_id -> Nullable<Int8>,
        direction -> Text,
        currency -> Text,
        total -> Int8,
        threshold -> Int8,
        transactions -> Jsonb,
        identification -> Jsonb,
        table_id -> Nullable<Int8>,
        raised_at -> Timestamptz,
    }
}

diesel::table! {
    compliance_decisions (case_id) {
        case_id -> Int8,
        decision -> Text,
        reference -> Text,
        reason -> Text,
        decided_by -> Int8,
        decided_at -> Timestamptz,
    }
}

diesel::table! {
    compliance_thresholds (id) {
        id -> Int8,
        currency -> Text,
        threshold -> Int8,
        warn_percent -> Int2,
        window_days -> Int2,
        set_by -> Nullable<Int8>,
        set_at -> Timestamptz,
    }
}

diesel::table! {
    dealer_shifts (id) {
        id -> Int8,
        table_id -> Int8,
        dealer_id -> Int8,
        gaming_day -> Date,
        signed_on_at -> Timestamptz,
        signed_off_at -> Nullable<Timestamptz>,
    }
}

diesel::table! {
    drop_count_voids (count_id) {
        count_id -> Int8,
        reason -> Text,
        voided_by -> Int8,
        voided_at -> Timestamptz,
    }
}

diesel::table! {
    drop_counts (id) {
        id -> Int8,
        table_id -> Int8,
        gaming_day -> Date,
        currency -> Text,
        note_denominations -> Array<Nullable<Int8>>,
        note_counts -> Array<Nullable<Int8>>,
        cash -> Int8,
        markers -> Int8,
        chip_vouchers -> Int8,
        total -> Int8,
        first_counter -> Int8,
        second_counter -> Int8,
        created_at -> Timestamptz,
    }
}

diesel::table! {
    exclusion_list_lines (id) {
        id -> Int8,
        list_id -> Int8,
        line -> Int4,
        last_name -> Text,
        first_name -> Text,
        date_of_birth -> Nullable<Date>,
        id_reference -> Nullable<Text>,
        status -> Text,
        reason -> Text,
    }
}

diesel::table! {
    exclusion_lists (id) {
        id -> Int8,
        source -> Text,
        lines -> Int4,
        gaming_day -> Date,
        imported_by -> Int8,
        imported_at -> Timestamptz,
    }
}

diesel::table! {
    gaming_day_closes (gaming_day) {
        gaming_day -> Date,
        closed_by -> Int8,
        closed_at -> Timestamptz,
        seal_seq -> Int8,
        seal_hash -> Bytea,
    }
}

diesel::table! {
    gaming_tables (id) {
        id -> Int8,
        code -> Text,
        name -> Text,
        currency -> Text,
        min_bet -> Int8,
        max_bet -> Int8,
        rule_profile_id -> Int8,
        created_at -> Timestamptz,
        updated_at -> Timestamptz,
        approval_threshold -> Nullable<Int8>,
        profile_version_id -> Int8,
        next_profile_version_id -> Nullable<Int8>,
        next_profile_from -> Nullable<Timestamptz>,
        confirm_prompt -> Bool,
        unit -> Nullable<Int8>,
    }
}

diesel::table! {
    inventory_slip_voids (slip_id) {
        slip_id -> Int8,
        reason -> Text,
        voided_by -> Int8,
        voided_at -> Timestamptz,
    }
}

diesel::table! {
    inventory_slips (id) {
        id -> Int8,
        table_id -> Int8,
        kind -> Text,
        gaming_day -> Date,
        shift_id -> Nullable<Int8>,
        chip_set_version_id -> Int8,
        counts -> Array<Nullable<Int8>>,
        total -> Int8,
        par_id -> Nullable<Int8>,
        dealer_id -> Int8,
        supervisor_id -> Int8,
        previous_closer_id -> Nullable<Int8>,
        difference -> Nullable<Int8>,
        difference_limit -> Nullable<Int8>,
        held -> Bool,
        created_at -> Timestamptz,
    }
}

diesel::table! {
    investigation_closings (investigation_id) {
        investigation_id -> Int8,
        findings -> Text,
        closed_by -> Int8,
        closed_at -> Timestamptz,
    }
}

diesel::table! {
    investigations (id) {
        id -> Int8,
        table_id -> Int8,
        gaming_day -> Date,
        currency -> Text,
        inventory_win -> Int8,
        rounds_win -> Int8,
        variance -> Int8,
        tolerance -> Int8,
        opened_at -> Timestamptz,
    }
}

diesel::table! {
    observation_cardings (observation_id) {
        observation_id -> Int8,
        rating_id -> Int8,
        player_id -> Int8,
        gaming_day -> Date,
        carded_by -> Int8,
        carded_at -> Timestamptz,
        kind -> Text,
    }
}

diesel::table! {
    open_ratings (table_id, seat) {
        table_id -> Int8,
        seat -> Int2,
        rating_id -> Int8,
        player_id -> Int8,
    }
}

diesel::table! {
    opener_explanations (slip_id) {
        slip_id -> Int8,
        explanation -> Text,
        written_by -> Int8,
        written_at -> Timestamptz,
    }
}

diesel::table! {
    player_statuses (id) {
        id -> Int8,
        player_id -> Int8,
        status -> Text,
        reason -> Text,
        source -> Text,
        set_by -> Int8,
        set_at -> Timestamptz,
    }
}

diesel::table! {
    players (id) {
        id -> Int8,
        card_number -> Text,
        first_name -> Text,
        last_name -> Text,
        date_of_birth -> Nullable<Date>,
        id_reference -> Nullable<Text>,
        notes -> Text,
        created_by -> Int8,
        created_at -> Timestamptz,
    }
}

diesel::table! {
    profile_version_edges (rule_profile_version_id) {
        rule_profile_version_id -> Int8,
        edge_ppm -> Int4,
        half_width_ppm -> Int4,
        deals -> Int4,
        seed -> Int8,
        computed_at -> Timestamptz,
    }
}

diesel::table! {
    rating_steps (rating_id, seq) {
        rating_id -> Int8,
        seq -> Int2,
        kind -> Text,
        at -> Timestamptz,
        by_user -> Int8,
        walked_with -> Nullable<Int8>,
    }
}

diesel::table! {
    ratings (id) {
        id -> Int8,
        player_id -> Int8,
        table_id -> Int8,
        seat -> Int2,
        gaming_day -> Date,
        started_at -> Timestamptz,
        started_by -> Int8,
    }
}

diesel::table! {
    round_approvals (round_id) {
        round_id -> Int8,
        table_id -> Int8,
        gaming_day -> Date,
        approved_by -> Int8,
        approved_at -> Timestamptz,
    }
}

diesel::table! {
    round_drafts (id) {
        id -> Int8,
        draft_key -> Text,
        table_id -> Int8,
        shift_id -> Nullable<Int8>,
        created_by -> Int8,
        revision -> Int4,
        data -> Jsonb,
        created_at -> Timestamptz,
        updated_at -> Timestamptz,
        settled_round_id -> Nullable<Int8>,
        abandoned_at -> Nullable<Timestamptz>,
        edited_by -> Array<Nullable<Int8>>,
    }
}

diesel::table! {
    round_figures (round_id) {
        round_id -> Int8,
        table_id -> Int8,
        dealer_id -> Int8,
        shift_id -> Int8,
        settled_at -> Timestamptz,
        dealer_result -> Int8,
        handle -> Int8,
        players_won -> Int8,
        gaming_day -> Date,
        seats -> Int2,
        player_sets -> Int2,
        player_fouls -> Int2,
        dealer_sets -> Int2,
        dealer_fouls -> Int2,
        surrenders -> Int2,
        royalties -> Int2,
        player_sweeps -> Int2,
        dealer_sweeps -> Int2,
        naturals -> Int2,
        pusoys -> Int2,
        points_game -> Bool,
        needs_approval -> Bool,
        currency -> Text,
    }
}

diesel::table! {
    round_reentries (round_id) {
        round_id -> Int8,
        replaces_round_id -> Int8,
        table_id -> Int8,
        gaming_day -> Date,
    }
}

diesel::table! {
    round_voids (round_id) {
        round_id -> Int8,
        table_id -> Int8,
        gaming_day -> Date,
        reason -> Text,
        note -> Text,
        voided_by -> Int8,
        voided_at -> Timestamptz,
        settled_at -> Timestamptz,
        largest_result -> Int8,
    }
}

diesel::table! {
    rounds (id) {
        id -> Int8,
        table_id -> Int8,
        gaming_day -> Date,
        round_no -> Int4,
        draft_key -> Text,
        shift_id -> Int8,
        dealer_id -> Int8,
        rule_profile_version_id -> Int8,
        currency -> Text,
        dealer_result -> Int8,
        settled_at -> Timestamptz,
        places -> Jsonb,
        needs_approval -> Bool,
        outcome_flags -> Int4,
        largest_result -> Int8,
        house_way_departure -> Bool,
    }
}

diesel::table! {
    rule_profile_versions (id) {
        id -> Int8,
        profile_id -> Int8,
        version -> Int4,
        options -> Jsonb,
        created_by -> Nullable<Int8>,
        created_at -> Timestamptz,
    }
}

diesel::table! {
    rule_profiles (id) {
        id -> Int8,
        name -> Text,
        created_at -> Timestamptz,
    }
}

diesel::table! {
    seat_refusals (id) {
        id -> Int8,
        player_id -> Int8,
        table_id -> Int8,
        seat -> Int2,
        gaming_day -> Date,
        status -> Text,
        refused_by -> Int8,
        refused_at -> Timestamptz,
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
    sign_in_locks (user_id, client_addr) {
        user_id -> Int8,
        client_addr -> Text,
        failures -> Int4,
        locked_until -> Nullable<Timestamptz>,
    }
}

diesel::table! {
    table_fee_voids (fee_id) {
        fee_id -> Int8,
        reason -> Text,
        voided_by -> Int8,
        voided_at -> Timestamptz,
    }
}

diesel::table! {
    table_fees (id) {
        id -> Int8,
        table_id -> Int8,
        gaming_day -> Date,
        shift_id -> Nullable<Int8>,
        currency -> Text,
        amount -> Int8,
        recorded_by -> Int8,
        created_at -> Timestamptz,
    }
}

diesel::table! {
    table_pars (id) {
        id -> Int8,
        table_id -> Int8,
        version -> Int4,
        chip_set_version_id -> Int8,
        counts -> Array<Nullable<Int8>>,
        total -> Int8,
        created_by -> Nullable<Int8>,
        created_at -> Timestamptz,
    }
}

diesel::table! {
    unrated_observation_ends (observation_id) {
        observation_id -> Int8,
        ended_at -> Timestamptz,
        walked_with -> Nullable<Int8>,
        ended_by -> Int8,
    }
}

diesel::table! {
    unrated_observation_voids (observation_id) {
        observation_id -> Int8,
        reason -> Text,
        voided_by -> Int8,
        voided_at -> Timestamptz,
    }
}

diesel::table! {
    unrated_observations (id) {
        id -> Int8,
        table_id -> Int8,
        seat -> Int2,
        gaming_day -> Date,
        description -> Text,
        currency -> Text,
        average_bet -> Int8,
        started_at -> Timestamptz,
        recorded_by -> Int8,
        recorded_at -> Timestamptz,
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
        signing_pin -> Nullable<Bytea>,
    }
}

diesel::joinable!(buy_in_attributions -> buy_ins (buy_in_id));
diesel::joinable!(buy_in_attributions -> observation_cardings (observation_id));
diesel::joinable!(buy_in_attributions -> players (player_id));
diesel::joinable!(buy_in_attributions -> ratings (rating_id));
diesel::joinable!(buy_in_attributions -> users (attributed_by));
diesel::joinable!(buy_in_voids -> buy_ins (buy_in_id));
diesel::joinable!(buy_in_voids -> users (voided_by));
diesel::joinable!(buy_ins -> dealer_shifts (shift_id));
diesel::joinable!(buy_ins -> gaming_tables (table_id));
diesel::joinable!(buy_ins -> players (player_id));
diesel::joinable!(buy_ins -> users (recorded_by));
diesel::joinable!(cage_cash -> players (player_id));
diesel::joinable!(cage_cash -> users (recorded_by));
diesel::joinable!(cage_cash_voids -> cage_cash (cage_cash_id));
diesel::joinable!(cage_cash_voids -> users (voided_by));
diesel::joinable!(cage_slip_prints -> cage_slips (slip_id));
diesel::joinable!(cage_slip_prints -> users (printed_by));
diesel::joinable!(cage_slip_steps -> cage_slips (slip_id));
diesel::joinable!(cage_slips -> chip_set_versions (chip_set_version_id));
diesel::joinable!(cage_slips -> gaming_tables (table_id));
diesel::joinable!(chip_set_versions -> chip_sets (chip_set_id));
diesel::joinable!(chip_set_versions -> users (created_by));
diesel::joinable!(closed_day_drop_sums -> dealer_shifts (shift_id));
diesel::joinable!(closed_day_drop_sums -> gaming_day_closes (gaming_day));
diesel::joinable!(closed_day_drop_sums -> gaming_tables (table_id));
diesel::joinable!(closed_day_round_sums -> dealer_shifts (shift_id));
diesel::joinable!(closed_day_round_sums -> gaming_day_closes (gaming_day));
diesel::joinable!(closed_day_round_sums -> gaming_tables (table_id));
diesel::joinable!(closed_table_days -> gaming_day_closes (gaming_day));
diesel::joinable!(closed_table_days -> gaming_tables (table_id));
diesel::joinable!(comp_rules -> users (set_by));
diesel::joinable!(compliance_cases -> gaming_tables (table_id));
diesel::joinable!(compliance_cases -> players (player_id));
diesel::joinable!(compliance_decisions -> compliance_cases (case_id));
diesel::joinable!(compliance_decisions -> users (decided_by));
diesel::joinable!(compliance_thresholds -> users (set_by));
diesel::joinable!(dealer_shifts -> gaming_tables (table_id));
diesel::joinable!(dealer_shifts -> users (dealer_id));
diesel::joinable!(drop_count_voids -> drop_counts (count_id));
diesel::joinable!(drop_count_voids -> users (voided_by));
diesel::joinable!(drop_counts -> gaming_tables (table_id));
diesel::joinable!(exclusion_list_lines -> exclusion_lists (list_id));
diesel::joinable!(exclusion_lists -> users (imported_by));
diesel::joinable!(gaming_day_closes -> users (closed_by));
diesel::joinable!(gaming_tables -> rule_profiles (rule_profile_id));
diesel::joinable!(inventory_slip_voids -> inventory_slips (slip_id));
diesel::joinable!(inventory_slip_voids -> users (voided_by));
diesel::joinable!(inventory_slips -> chip_set_versions (chip_set_version_id));
diesel::joinable!(inventory_slips -> dealer_shifts (shift_id));
diesel::joinable!(inventory_slips -> gaming_tables (table_id));
diesel::joinable!(inventory_slips -> table_pars (par_id));
diesel::joinable!(investigation_closings -> investigations (investigation_id));
diesel::joinable!(investigation_closings -> users (closed_by));
diesel::joinable!(investigations -> gaming_tables (table_id));
diesel::joinable!(observation_cardings -> players (player_id));
diesel::joinable!(observation_cardings -> ratings (rating_id));
diesel::joinable!(observation_cardings -> unrated_observations (observation_id));
diesel::joinable!(observation_cardings -> users (carded_by));
diesel::joinable!(open_ratings -> gaming_tables (table_id));
diesel::joinable!(open_ratings -> players (player_id));
diesel::joinable!(open_ratings -> ratings (rating_id));
diesel::joinable!(opener_explanations -> inventory_slips (slip_id));
diesel::joinable!(opener_explanations -> users (written_by));
diesel::joinable!(player_statuses -> players (player_id));
diesel::joinable!(player_statuses -> users (set_by));
diesel::joinable!(players -> users (created_by));
diesel::joinable!(profile_version_edges -> rule_profile_versions (rule_profile_version_id));
diesel::joinable!(rating_steps -> ratings (rating_id));
diesel::joinable!(rating_steps -> users (by_user));
diesel::joinable!(ratings -> gaming_tables (table_id));
diesel::joinable!(ratings -> players (player_id));
diesel::joinable!(ratings -> users (started_by));
diesel::joinable!(round_approvals -> gaming_tables (table_id));
diesel::joinable!(round_approvals -> rounds (round_id));
diesel::joinable!(round_approvals -> users (approved_by));
diesel::joinable!(round_drafts -> dealer_shifts (shift_id));
diesel::joinable!(round_drafts -> gaming_tables (table_id));
diesel::joinable!(round_drafts -> rounds (settled_round_id));
diesel::joinable!(round_drafts -> users (created_by));
diesel::joinable!(round_figures -> rounds (round_id));
diesel::joinable!(round_reentries -> gaming_tables (table_id));
diesel::joinable!(round_reentries -> round_voids (replaces_round_id));
diesel::joinable!(round_reentries -> rounds (round_id));
diesel::joinable!(round_voids -> gaming_tables (table_id));
diesel::joinable!(round_voids -> rounds (round_id));
diesel::joinable!(round_voids -> users (voided_by));
diesel::joinable!(rounds -> rule_profile_versions (rule_profile_version_id));
diesel::joinable!(rule_profile_versions -> rule_profiles (profile_id));
diesel::joinable!(rule_profile_versions -> users (created_by));
diesel::joinable!(seat_refusals -> gaming_tables (table_id));
diesel::joinable!(seat_refusals -> players (player_id));
diesel::joinable!(seat_refusals -> users (refused_by));
diesel::joinable!(sessions -> users (user_id));
diesel::joinable!(sign_in_locks -> users (user_id));
diesel::joinable!(table_fee_voids -> table_fees (fee_id));
diesel::joinable!(table_fee_voids -> users (voided_by));
diesel::joinable!(table_fees -> dealer_shifts (shift_id));
diesel::joinable!(table_fees -> gaming_tables (table_id));
diesel::joinable!(table_fees -> users (recorded_by));
diesel::joinable!(table_pars -> chip_set_versions (chip_set_version_id));
diesel::joinable!(table_pars -> gaming_tables (table_id));
diesel::joinable!(table_pars -> users (created_by));
diesel::joinable!(unrated_observation_ends -> unrated_observations (observation_id));
diesel::joinable!(unrated_observation_ends -> users (ended_by));
diesel::joinable!(unrated_observation_voids -> unrated_observations (observation_id));
diesel::joinable!(unrated_observation_voids -> users (voided_by));
diesel::joinable!(unrated_observations -> gaming_tables (table_id));
diesel::joinable!(unrated_observations -> users (recorded_by));

diesel::allow_tables_to_appear_in_same_query!(
    api_tokens,
    audit_chain_heads,
    audit_events,
    buy_in_attributions,
    buy_in_voids,
    buy_ins,
    cage_cash,
    cage_cash_voids,
    cage_slip_numbers,
    cage_slip_prints,
    cage_slip_steps,
    cage_slips,
    chip_set_versions,
    chip_sets,
    closed_day_drop_sums,
    closed_day_round_sums,
    closed_table_days,
    comp_rules,
    compliance_cases,
    compliance_decisions,
    compliance_thresholds,
    dealer_shifts,
    drop_count_voids,
    drop_counts,
    exclusion_list_lines,
    exclusion_lists,
    gaming_day_closes,
    gaming_tables,
    inventory_slip_voids,
    inventory_slips,
    investigation_closings,
    investigations,
    observation_cardings,
    open_ratings,
    opener_explanations,
    player_statuses,
    players,
    profile_version_edges,
    rating_steps,
    ratings,
    round_approvals,
    round_drafts,
    round_figures,
    round_reentries,
    round_voids,
    rounds,
    rule_profile_versions,
    rule_profiles,
    seat_refusals,
    sessions,
    sign_in_locks,
    table_fee_voids,
    table_fees,
    table_pars,
    unrated_observation_ends,
    unrated_observation_voids,
    unrated_observations,
    users,
);
