//! Scale-out: one job spread over many processes and machines by a batch scheduler, then joined.
//! See `docs/scale-out.md` for the user's side.
//!
//! Data flow: `dixit slurm` → [`Job`] (`DIR/job.json`) + [`slurm`] scripts → the scheduler
//! starts task i → `dixit task DIR/job.json` resolves its [`Shard`] ([`ShardSpec`], from
//! `SLURM_ARRAY_TASK_ID` or `JOB_COMPLETION_INDEX`) and runs the job's task command → the
//! command writes `DIR/shard-I-of-N.json` ([`write_atomic`]) → the merge step lists the files
//! ([`ShardFiles`], [`Coverage`]) and joins them.
//!
//! Nothing here knows what a task computes: `dixit eval` is one kind of task (its shards are
//! problems balanced by expected work, see [`partition`]).
//!
//! - `shard.rs`: [`Shard`], [`ShardSpec`] and the scheduler variables, [`partition`].
//! - `files.rs`: shard file names, atomic writes, [`ShardFiles`], [`Coverage`].
//! - `job.rs`: [`Job`], the scheduler-neutral job description.
//! - `slurm.rs`: the sbatch scripts of a job, their submission, resubmission commands.

mod files;
mod job;
mod shard;
pub mod slurm;

pub use files::{
    check_shard_file, parse_shard_file_name, shard_file_name, write_atomic, Coverage,
    ShardFileError, ShardFiles,
};
pub use job::{Job, JobError, JOB_FILE, JOB_FORMAT, SHARD_PLACEHOLDER};
pub use shard::{
    partition, process_env, EnvLookup, Shard, ShardEnvError, ShardParseError, ShardSpec,
    JOB_COMPLETION_INDEX, SLURM_ARRAY_TASK_COUNT, SLURM_ARRAY_TASK_ID, SLURM_ARRAY_TASK_MAX,
    SLURM_ARRAY_TASK_MIN, SLURM_ARRAY_TASK_STEP,
};
