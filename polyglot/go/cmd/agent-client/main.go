// Command agent-client starts a durable-react-agent run, follows it, approves every tool call that waits for a
// person, and prints the outcome as JSON. It uses only the published wire contract (the names and shapes in package
// contract), never the project's TypeScript client: it is the proof that another SDK can drive runs.
//
//	agent-client -query "…" [-config '{"model":"…","approvals":{"require":["…"]}}'] [-task-queue q] [-identity who]
//
// TEMPORAL_ADDRESS and TEMPORAL_NAMESPACE say where the server is. Output: {"workflowId", "approved": [the decide
// update's answers], "result": the run's result}. A refused decision, or a run still going at -timeout, exits 1.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"time"

	"durable-react-agent/polyglot/contract"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
)

// pollInterval is how often a waiting run is asked what it waits for: a person's pace, not a hot loop.
const pollInterval = 200 * time.Millisecond

type output struct {
	WorkflowID string                     `json:"workflowId"`
	Approved   []contract.AppliedDecision `json:"approved"`
	Result     contract.Result            `json:"result"`
}

func main() {
	query := flag.String("query", "", "what the agent is asked (required)")
	config := flag.String("config", "", "the run's config as JSON, grouped as in docs/configuration.md")
	taskQueue := flag.String("task-queue", contract.DefaultTaskQueue, "the task queue the agent's workers poll")
	workflowID := flag.String("workflow-id", fmt.Sprintf("go-agent-%d", time.Now().UnixNano()), "the run's workflow ID")
	identity := flag.String("identity", "", "who approves, as recorded in the trace and the audit")
	clientIdentity := flag.String("client-identity", fmt.Sprintf("go-agent-client@%d", os.Getpid()),
		"the Temporal client identity the server records for each request")
	timeout := flag.Duration("timeout", 2*time.Minute, "give up after this long")
	flag.Parse()
	if *query == "" {
		flag.Usage()
		os.Exit(2)
	}
	input := contract.WorkflowInput{Query: *query}
	if *config != "" {
		if !json.Valid([]byte(*config)) {
			log.Fatalf("agent-client: -config is not JSON")
		}
		input.Config = json.RawMessage(*config)
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	c, err := client.Dial(client.Options{
		HostPort:  envOr("TEMPORAL_ADDRESS", client.DefaultHostPort),
		Namespace: envOr("TEMPORAL_NAMESPACE", client.DefaultNamespace),
		Identity:  *clientIdentity,
	})
	if err != nil {
		log.Fatalf("agent-client: cannot reach Temporal: %v", err)
	}
	defer c.Close()

	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: *workflowID, TaskQueue: *taskQueue},
		contract.WorkflowType, input)
	if err != nil {
		log.Fatalf("agent-client: start: %v", err)
	}
	log.Printf("started %s", run.GetID())
	approved, err := approveWhilePending(ctx, c, run.GetID(), *identity)
	if err != nil {
		log.Fatalf("agent-client: %v", err)
	}
	out := output{WorkflowID: run.GetID(), Approved: approved}
	// An empty run ID follows the run across continue-as-new to the chain's result.
	if err := c.GetWorkflow(ctx, run.GetID(), "").Get(ctx, &out.Result); err != nil {
		log.Fatalf("agent-client: result: %v", err)
	}
	encoded, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		log.Fatalf("agent-client: %v", err)
	}
	fmt.Println(string(encoded))
}

// approveWhilePending asks the run what it waits for until it ends, approving each pending call once.
func approveWhilePending(ctx context.Context, c client.Client, workflowID, identity string) ([]contract.AppliedDecision, error) {
	approved := []contract.AppliedDecision{}
	sent := map[string]bool{}
	var lastQueryErr error
	for {
		description, err := c.DescribeWorkflowExecution(ctx, workflowID, "")
		if err != nil {
			return nil, fmt.Errorf("describe: %w", err)
		}
		if description.WorkflowExecutionInfo.Status != enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
			return approved, nil
		}
		var pending contract.PendingDecisions
		answer, err := c.QueryWorkflow(ctx, workflowID, "", contract.PendingQuery)
		if err == nil {
			err = answer.Get(&pending)
		}
		if err != nil {
			// Before its first task, between runs of its chain or while ending, a run cannot answer: ask again, and
			// report the error only if it never could.
			lastQueryErr = err
		}
		for _, call := range pending.Approvals {
			if sent[call.CallID] {
				continue
			}
			sent[call.CallID] = true
			applied, err := approve(ctx, c, workflowID, call, identity)
			if err != nil {
				// A refused decision leaves the call pending: stop and say why rather than wait for a run that waits.
				return nil, fmt.Errorf("approve %s: %w", call.CallID, err)
			}
			log.Printf("approved %s (%s)", call.CallID, call.Tool)
			approved = append(approved, applied)
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("the run did not end in time (%w); it waits for %+v (last getPending error: %v)",
				ctx.Err(), pending, lastQueryErr)
		case <-time.After(pollInterval):
		}
	}
}

// approve sends the decide update for one call, bound to the arguments it was shown, and waits for its answer.
func approve(ctx context.Context, c client.Client, workflowID string, call contract.PendingCall, identity string) (contract.AppliedDecision, error) {
	var applied contract.AppliedDecision
	handle, err := c.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{
		WorkflowID:   workflowID,
		UpdateName:   contract.DecideUpdate,
		WaitForStage: client.WorkflowUpdateStageCompleted,
		Args: []interface{}{contract.Decision{
			CallID:   call.CallID,
			Decision: "approve",
			ArgsHash: call.ArgsHash,
			Identity: identity,
		}},
	})
	if err != nil {
		return applied, err
	}
	return applied, handle.Get(ctx, &applied)
}

func envOr(name, fallback string) string {
	if value := os.Getenv(name); value != "" {
		return value
	}
	return fallback
}
