//! Scale-out: one job spread over many processes and machines by a batch scheduler, then joined.
//! See `docs/scale-out.md` for the user's side.
//!
//! Data flow: the scheduler starts task i → the command resolves its [`Shard`] ([`ShardSpec`],
//! from `SLURM_ARRAY_TASK_ID` or `JOB_COMPLETION_INDEX`) → it writes `DIR/shard-I-of-N.json`
//! ([`write_atomic`]) → the merge step lists the files ([`ShardFiles`], [`Coverage`]) and
//! joins them.
//!
//! Nothing here knows what a task computes: `dixit eval` is one kind of task (its shards are
//! problems balanced by expected work, see [`partition`]).
//!
//! - `shard.rs`: [`Shard`], [`ShardSpec`] and the scheduler variables, [`partition`].
//! - `files.rs`: shard file names, atomic writes, [`ShardFiles`], [`Coverage`].

mod files;
mod shard;

pub use files::{
    join_and, parse_shard_file_name, shard_file_name, write_atomic, Coverage, ShardFileError,
    ShardFiles,
};
pub use shard::{
    partition, process_env, EnvLookup, Shard, ShardEnvError, ShardParseError, ShardSpec,
    JOB_COMPLETION_INDEX, SLURM_ARRAY_TASK_COUNT, SLURM_ARRAY_TASK_ID, SLURM_ARRAY_TASK_MAX,
    SLURM_ARRAY_TASK_MIN, SLURM_ARRAY_TASK_STEP,
};
