// Package contract holds the few names and shapes of durable-react-agent's wire contract these programs use. Each
// struct names the TypeScript type it mirrors, whose JSON Schema docs/contract/ publishes; only the fields read or
// sent here are declared, so a field the workflow adds later does not break them.
package contract

import "encoding/json"

// Names from src/shared/messages.ts.
const (
	// WorkflowType is the agent workflow's registered name (AGENT_WORKFLOW_TYPE).
	WorkflowType = "reactAgentWorkflow"
	// DefaultTaskQueue is the queue our workers poll unless configured otherwise (DEFAULT_TASK_QUEUE).
	DefaultTaskQueue = "durable-react-agent"
	// PendingQuery answers with PendingDecisions (getPendingQuery).
	PendingQuery = "getPending"
	// DecideUpdate takes a Decision and answers with an AppliedDecision (decideUpdate).
	DecideUpdate = "decide"
)

// WorkflowInput mirrors AgentWorkflowInput (src/shared/types.ts): the workflow's one argument. Config is the grouped
// AgentConfig as people write it (src/shared/config.ts), passed through as JSON.
type WorkflowInput struct {
	Query  string          `json:"query"`
	Config json.RawMessage `json:"config,omitempty"`
}

// PendingCall mirrors PendingCall (src/shared/approvals.ts): a tool call waiting for a person.
type PendingCall struct {
	CallID   string          `json:"callId"`
	Tool     string          `json:"tool"`
	Args     json.RawMessage `json:"args"`
	ArgsHash string          `json:"argsHash"`
	Question string          `json:"question"`
}

// PendingDecisions mirrors PendingDecisions (src/shared/approvals.ts; schema of the getPending query's answer).
type PendingDecisions struct {
	Approvals []PendingCall `json:"approvals"`
}

// Decision mirrors the approve variant of Decision (src/shared/approvals.ts; the decide update's payload). Empty
// optional fields must be left out: the workflow refuses unknown fields and empty strings.
type Decision struct {
	CallID   string `json:"callId"`
	Decision string `json:"decision"`
	ArgsHash string `json:"argsHash,omitempty"`
	Identity string `json:"identity,omitempty"`
	Channel  string `json:"channel,omitempty"`
}

// Decider mirrors Decider (src/shared/identity.ts): who decided, as the run recorded it.
type Decider struct {
	Identity *string `json:"identity"`
	Channel  string  `json:"channel"`
}

// AppliedDecision mirrors AppliedDecision (src/shared/approvals.ts; the decide update's answer).
type AppliedDecision struct {
	CallID   string          `json:"callId"`
	Tool     string          `json:"tool"`
	Decision string          `json:"decision"`
	Args     json.RawMessage `json:"args"`
	By       *Decider        `json:"by,omitempty"`
}

// Step mirrors the fields of ReActStep (src/shared/types.ts) a caller reads back: the action, what it observed,
// and how a person settled it.
type Step struct {
	Iteration   int             `json:"iteration"`
	Action      json.RawMessage `json:"action"`
	Observation *string         `json:"observation"`
	IsError     bool            `json:"isError,omitempty"`
	Decision    *struct {
		Kind string   `json:"kind"`
		By   *Decider `json:"by,omitempty"`
	} `json:"decision,omitempty"`
}

// Result mirrors ReActResult (src/shared/types.ts), the workflow's result, trimmed to the answer, why
// the run ended and its steps.
type Result struct {
	Success           bool    `json:"success"`
	FinalAnswer       *string `json:"finalAnswer"`
	TerminationReason string  `json:"terminationReason"`
	WorkflowID        string  `json:"workflowId"`
	Trace             struct {
		Steps []Step `json:"steps"`
	} `json:"trace"`
}

// ToolInput is the one argument a remote tool's activity receives (docs/tools-in-other-languages.md).
type ToolInput struct {
	Tool           string          `json:"tool"`
	Args           json.RawMessage `json:"args"`
	CallID         string          `json:"callId"`
	IdempotencyKey string          `json:"idempotencyKey"`
}
