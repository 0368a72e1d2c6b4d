//! System prompts and tool schemas.
//!
//! The rules follow SandMLE's released system prompt (its `custom_train.py`):
//! one script that trains a model and writes `submission.csv`; run it with
//! the Python tool, grade it with Score, refine until satisfied; exactly
//! one `<tool_call>` per response; at least one tool response observed
//! before `<answer>submission</answer>`. The wording is this project's.
//! The release ends its prompt with `Current date: <today>`; that would make
//! prompts differ from day to day, so it is left out.

use crate::env::{PIPELINE_TOOL, PYTHON_TOOL, SCORE_TOOL, ToolSet};
use sandmle_core::ToolSpec;
use serde_json::json;

const RULES: &str = "You are an expert Kaggle competitor. Write one Python script that trains a model and writes \
`submission.csv` for the dataset described in the user's message.

Rules:
- Use only libraries that are already installed; install nothing.
- Write, run and revise your script with the {python} tool.
- Once a submission exists, grade it with the {score} tool; if the score is not good enough, keep refining the \
code and grading again.
- Be concise and stay on the task.

Loop:
1) Each turn, propose or refine the script (or your reasoning), then wait for the tool's feedback.
2) Run the code until it runs cleanly and writes the file. Each response holds exactly ONE tool call; never \
several.
3) You must see at least one tool result before you finish. Only when the feedback looks good, reply with \
<answer>submission</answer>; otherwise keep iterating and do not write <answer> tags.
4) Start every response with your reasoning inside <think></think>.";

fn rules(tools: &ToolSet) -> String {
    let mut s = RULES.replace("{python}", PYTHON_TOOL).replace("{score}", SCORE_TOOL);
    if tools.pipeline {
        s.push_str(&format!(
            "\n5) Instead of Python you may run a declarative pipeline spec with the {PIPELINE_TOOL} tool \
             (preprocessing steps and one model, as JSON); it writes submission.csv."
        ));
    }
    if !tools.code {
        s = s.replace(&format!("with the {PYTHON_TOOL} tool"), &format!("with the {PIPELINE_TOOL} tool"));
    }
    s
}

/// The system prompt of `codec_name`'s format for `tools`.
pub fn system_prompt(codec_name: &str, tools: &ToolSet) -> String {
    let mut s = rules(tools);
    match codec_name {
        "sandmle_react" => {
            s.push_str(
                "\n\nTool usage:\nFor each call, put the call inside <tool_call></tool_call> tags.\n- Run Python code \
                 exactly like this:\n<tool_call>\npython\n<code>\n# your Python code here\nprint(\"Hello World\")\n\
                 </code>\n</tool_call>\nThe code inside runs in Python; keep the word `python` and the <code></code> \
                 tags.\n\n- To grade submission.csv, call the Score tool with a JSON object like this:\n<tool_call>\n\
                 {\"name\": \"Score\", \"arguments\": {\"competition_id\": \"the competition id from the task \
                 description\"}}\n</tool_call>",
            );
            if tools.pipeline {
                s.push_str(&format!(
                    "\n\n- To run a pipeline spec:\n<tool_call>\n{{\"name\": \"{PIPELINE_TOOL}\", \"arguments\": \
                     {{\"spec\": {{\"steps\": [...], \"model\": {{...}}}}}}}}\n</tool_call>"
                ));
            }
        }
        "hermes_json" => {
            s.push_str(
                "\n\n# Tools\n\nYou may call one function per response. The function signatures are within \
                 <tools></tools> XML tags:\n<tools>\n",
            );
            for spec in tool_specs(tools) {
                let f = json!({"type": "function", "function": {"name": spec.name, "description": spec.description, "parameters": spec.parameters}});
                s.push_str(&f.to_string());
                s.push('\n');
            }
            s.push_str(
                "</tools>\n\nFor the call, return a JSON object with the function name and arguments within \
                 <tool_call></tool_call> XML tags:\n<tool_call>\n{\"name\": <function-name>, \"arguments\": \
                 <args-json-object>}\n</tool_call>",
            );
        }
        _ => {}
    }
    s
}

/// The offered tools as OpenAI function schemas, in a fixed order.
pub fn tool_specs(tools: &ToolSet) -> Vec<ToolSpec> {
    let mut specs = Vec::new();
    if tools.code {
        specs.push(ToolSpec {
            name: PYTHON_TOOL.into(),
            description: "Run a Python program in the task's working directory (it holds the public files and \
                          whatever earlier runs wrote). Returns the last 20 lines of stdout and stderr and whether \
                          submission.csv exists."
                .into(),
            parameters: json!({"type": "object", "properties": {"code": {"type": "string", "description": "The Python program to run"}}, "required": ["code"]}),
        });
    }
    if tools.pipeline {
        specs.push(ToolSpec {
            name: PIPELINE_TOOL.into(),
            description: "Run a declarative pipeline spec (preprocessing steps and one model) in-process; it \
                          writes submission.csv."
                .into(),
            parameters: json!({"type": "object", "properties": {"spec": {"type": "object", "description": "The pipeline spec"}}, "required": ["spec"]}),
        });
    }
    specs.push(ToolSpec {
        name: SCORE_TOOL.into(),
        description: "Grade submission.csv in the working directory against the hidden answers.".into(),
        parameters: json!({"type": "object", "properties": {"competition_id": {"type": "string", "description": "The competition id from the task description"}}, "required": []}),
    });
    specs
}
