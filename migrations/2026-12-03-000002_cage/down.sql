DROP TABLE cage_slip_prints;
DROP TABLE cage_slip_steps;
DROP TABLE cage_slips;
DROP TABLE cage_slip_numbers;
DROP FUNCTION cage_records_are_kept();
DROP FUNCTION cage_slip_step_in_order();
ALTER TABLE users DROP CONSTRAINT users_role_check;
ALTER TABLE users ADD CONSTRAINT users_role_check
    CHECK (role IN ('dealer', 'supervisor', 'auditor', 'admin'));
