DROP TABLE investigation_closings, investigations, drop_count_voids, drop_counts,
    table_fee_voids, table_fees, buy_in_voids, buy_ins;
DROP FUNCTION accounting_records_are_kept();
