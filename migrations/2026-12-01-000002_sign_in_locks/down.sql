DROP TABLE sign_in_locks;
