"""Schema 0001: builds (summary columns, parts as JSON, changes), their stored reports, and the meta table that marks
the database as ours.

Revision ID: 0001
Revises:
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "size_history_meta",
        sa.Column("key", sa.String(64), primary_key=True),
        sa.Column("value", sa.String(255), nullable=False),
    )
    op.create_table(
        "size_builds",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("commit_sha", sa.String(64), nullable=False),
        sa.Column("branch", sa.String(255), nullable=False),
        sa.Column("labels", sa.String(1000), nullable=False),
        sa.Column("built_at", sa.DateTime(), nullable=False),
        sa.Column("recorded_at", sa.DateTime(), nullable=False),
        sa.Column("source", sa.String(255), nullable=False),
        sa.Column("arch", sa.String(64), nullable=False),
        sa.Column("tool", sa.String(64), nullable=False),
        sa.Column("build_url", sa.String(1000), nullable=False),
        sa.Column("rom_total", sa.BigInteger, nullable=False),
        sa.Column("ram_total", sa.BigInteger, nullable=False),
        sa.Column("min_symbol", sa.Integer, nullable=False),
        sa.Column("base_id", sa.Integer, nullable=True),
        sa.Column("parts", sa.JSON, nullable=False),
        sa.Column("parts_depth2", sa.JSON, nullable=False),
        sa.Column("changes", sa.LargeBinary, nullable=True),
        sa.UniqueConstraint("commit_sha", "labels", name="uq_size_builds_commit_labels"),
        sqlite_autoincrement=True,
    )
    op.create_index("ix_size_builds_series", "size_builds", ["branch", "labels", "built_at"])
    op.create_index("ix_size_builds_time", "size_builds", ["built_at", "id"])
    op.create_table(
        "size_build_reports",
        sa.Column("build_id", sa.Integer, sa.ForeignKey("size_builds.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("report", sa.LargeBinary, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("size_build_reports")
    op.drop_index("ix_size_builds_time", table_name="size_builds")
    op.drop_index("ix_size_builds_series", table_name="size_builds")
    op.drop_table("size_builds")
    op.drop_table("size_history_meta")
