// compose-check loads a compose file with compose-go, the library Docker Compose itself uses, so
// schema violations, broken interpolation and dangling references fail here exactly as they would
// in `docker compose config`. On success it prints the normalized project as JSON for the
// env-variable checker in ../../validate.js.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/compose-spec/compose-go/v2/cli"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: compose-check <compose.yaml>")
		os.Exit(2)
	}
	options, err := cli.NewProjectOptions(
		[]string{os.Args[1]},
		cli.WithName("agentplatform"),
		cli.WithResolvedPaths(true),
		// Interpolation sees the environment validate.js passes: placeholders for the variables
		// compose.yaml requires (${VAR:?...}), nothing from the caller's shell.
		cli.WithOsEnv,
	)
	if err != nil {
		fail(err)
	}
	project, err := options.LoadProject(context.Background())
	if err != nil {
		fail(err)
	}
	out, err := project.MarshalJSON()
	if err != nil {
		fail(err)
	}
	os.Stdout.Write(out)
}

func fail(err error) {
	fmt.Fprintf(os.Stderr, "compose file invalid: %v\n", err)
	os.Exit(1)
}
