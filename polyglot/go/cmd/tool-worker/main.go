// Command tool-worker is a Temporal Go worker serving one remote tool of durable-react-agent: `ledger_transfer`,
// which appends a transfer to a JSON-lines ledger and returns a receipt. It polls its own task queue; the agent's
// worker declares the tool (name, schema, task queue, activity type) and schedules calls to it there.
//
//	tool-worker -task-queue go-tools [-activity-type ledger_transfer] [-ledger ledger.jsonl]
//
// TEMPORAL_ADDRESS and TEMPORAL_NAMESPACE say where the server is; LEDGER_FILE names the ledger unless -ledger does.
// It prints "ready" on stdout once it polls, and stops on SIGINT or SIGTERM.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"sync"
	"time"

	"durable-react-agent/polyglot/contract"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"
)

// transferArgs are the tool's arguments, as its declared JSON Schema describes them.
type transferArgs struct {
	Amount float64 `json:"amount"`
	To     string  `json:"to"`
}

// ledgerLine is one line of the ledger: one per execution, so a test counts how often a call really ran.
type ledgerLine struct {
	IdempotencyKey string  `json:"idempotencyKey"`
	CallID         string  `json:"callId"`
	Amount         float64 `json:"amount"`
	To             string  `json:"to"`
	At             string  `json:"at"`
}

// ledger appends transfers to a file; the mutex keeps concurrent activities' lines whole.
type ledger struct {
	mu   sync.Mutex
	file string
}

// Transfer is the activity: arguments the tool cannot use are a non-retryable failure, which the agent shows the
// model as an error observation it can correct.
func (l *ledger) Transfer(ctx context.Context, input contract.ToolInput) (string, error) {
	var args transferArgs
	if err := json.Unmarshal(input.Args, &args); err != nil {
		return "", temporal.NewNonRetryableApplicationError("arguments are not a transfer: "+err.Error(), "InvalidArguments", err)
	}
	if args.Amount <= 0 || args.To == "" {
		return "", temporal.NewNonRetryableApplicationError("a transfer needs a positive amount and a recipient", "InvalidArguments", nil)
	}
	line, err := json.Marshal(ledgerLine{
		IdempotencyKey: input.IdempotencyKey,
		CallID:         input.CallID,
		Amount:         args.Amount,
		To:             args.To,
		At:             time.Now().UTC().Format(time.RFC3339Nano),
	})
	if err != nil {
		return "", err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	f, err := os.OpenFile(l.file, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return "", err
	}
	defer f.Close()
	if _, err := f.Write(append(line, '\n')); err != nil {
		return "", err
	}
	activity.GetLogger(ctx).Info("transfer recorded", "idempotencyKey", input.IdempotencyKey)
	return fmt.Sprintf("transferred %.2f to %s (receipt %s)", args.Amount, args.To, input.IdempotencyKey), nil
}

func main() {
	taskQueue := flag.String("task-queue", "", "the task queue the agent's worker schedules this tool on (required)")
	activityType := flag.String("activity-type", "ledger_transfer", "the activity type the tool is declared with")
	ledgerFile := flag.String("ledger", os.Getenv("LEDGER_FILE"), "the JSON-lines ledger file (default $LEDGER_FILE)")
	flag.Parse()
	if *taskQueue == "" || *ledgerFile == "" {
		flag.Usage()
		os.Exit(2)
	}
	c, err := client.Dial(client.Options{
		HostPort:  envOr("TEMPORAL_ADDRESS", client.DefaultHostPort),
		Namespace: envOr("TEMPORAL_NAMESPACE", client.DefaultNamespace),
		Identity:  fmt.Sprintf("go-tool-worker@%d", os.Getpid()),
	})
	if err != nil {
		log.Fatalf("tool-worker: cannot reach Temporal: %v", err)
	}
	defer c.Close()
	w := worker.New(c, *taskQueue, worker.Options{})
	w.RegisterActivityWithOptions((&ledger{file: *ledgerFile}).Transfer, activity.RegisterOptions{Name: *activityType})
	if err := w.Start(); err != nil {
		log.Fatalf("tool-worker: %v", err)
	}
	fmt.Println("ready")
	<-worker.InterruptCh()
	w.Stop()
}

func envOr(name, fallback string) string {
	if value := os.Getenv(name); value != "" {
		return value
	}
	return fallback
}
