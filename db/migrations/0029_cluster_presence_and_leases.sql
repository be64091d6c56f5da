CREATE TABLE "agent_presence_nodes" (
	"user_id" integer NOT NULL,
	"node_id" text NOT NULL,
	"account_id" integer NOT NULL,
	"connections" integer DEFAULT 0 NOT NULL,
	"last_seen_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "agent_presence_nodes_user_id_node_id_pk" PRIMARY KEY("user_id","node_id")
);
--> statement-breakpoint
CREATE TABLE "cluster_leases" (
	"key" text PRIMARY KEY NOT NULL,
	"holder" text NOT NULL,
	"acquired_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "conversation_viewers" (
	"node_id" text NOT NULL,
	"connection_id" text NOT NULL,
	"account_id" integer NOT NULL,
	"conversation_id" integer NOT NULL,
	"user_id" integer NOT NULL,
	"seen_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "conversation_viewers_node_id_connection_id_pk" PRIMARY KEY("node_id","connection_id")
);
--> statement-breakpoint
ALTER TABLE "agent_presence_nodes" ADD CONSTRAINT "agent_presence_nodes_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agent_presence_nodes" ADD CONSTRAINT "agent_presence_nodes_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "conversation_viewers" ADD CONSTRAINT "conversation_viewers_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "conversation_viewers" ADD CONSTRAINT "conversation_viewers_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "agent_presence_nodes_node_idx" ON "agent_presence_nodes" USING btree ("node_id");--> statement-breakpoint
CREATE INDEX "conversation_viewers_conversation_idx" ON "conversation_viewers" USING btree ("account_id","conversation_id");