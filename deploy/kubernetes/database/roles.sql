-- The two database roles of a deployment, run once by the server's administrator (psql -v ...):
--   psql -v migrator_password=... -v app_password=... -v database=acme -f roles.sql
-- acme_migrator owns the schema and runs the migration Job (DDL); acme_app is what the services run
-- as: it reads and writes rows, and can neither create, alter nor drop anything.
create role acme_migrator login password :'migrator_password';
create role acme_app login password :'app_password';
select format('create database %I owner acme_migrator', :'database') \gexec
\connect :database
revoke create on schema public from public;
alter schema public owner to acme_migrator;
grant usage on schema public to acme_app;
-- Tables and sequences the migrator makes from now on are open to the app role for rows only.
alter default privileges for role acme_migrator in schema public
  grant select, insert, update, delete on tables to acme_app;
alter default privileges for role acme_migrator in schema public
  grant usage, select, update on sequences to acme_app;
alter default privileges for role acme_migrator in schema public
  grant execute on functions to acme_app;
