CREATE TABLE "schema_upgrades" (
	"id" serial PRIMARY KEY NOT NULL,
	"parley_version" text NOT NULL,
	"migration" text NOT NULL,
	"migration_created_at" bigint NOT NULL,
	"migrations_applied" integer NOT NULL,
	"host" text,
	"migrated_at" timestamp with time zone DEFAULT now() NOT NULL
);
