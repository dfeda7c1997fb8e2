{{/* Names, labels and the values every template derives from one place. */}}

{{- define "tieout.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "tieout.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- define "tieout.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
app.kubernetes.io/name: {{ include "tieout.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{/* Selector labels of one component: (dict "root" $ "component" "parse"). */}}
{{- define "tieout.selectorLabels" -}}
app.kubernetes.io/name: {{ include "tieout.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{- define "tieout.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "tieout.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{- define "tieout.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) -}}
{{- end -}}

{{/* The input topic of each stage (schemas/topology.py TOPOLOGY; tests/test_helm_chart.py holds it to the table). */}}
{{- define "tieout.inputTopic" -}}
{{- get (dict "parse" "landing" "verify" "parsed" "sink" "verified") . -}}
{{- end -}}

{{/* One message's processing budget in the consumers: --timeout + 60 s (consumers/wiring.py). */}}
{{- define "tieout.processingBudget" -}}
{{- add (int .Values.processing.documentTimeoutSeconds) 60 -}}
{{- end -}}

{{/* SIGTERM to SIGKILL: the budget of the message in hand plus the shutdown's own. */}}
{{- define "tieout.gracePeriod" -}}
{{- add (include "tieout.processingBudget" . | int) (int .Values.processing.shutdownSeconds) -}}
{{- end -}}

{{- define "tieout.credentialsSecret" -}}
{{- printf "%s-credentials" (include "tieout.fullname" .) -}}
{{- end -}}

{{/* An env entry read from a Secret: (dict "root" $ "env" "S3_SECRET_KEY" "cred" "s3SecretKey"). */}}
{{- define "tieout.secretEnv" -}}
{{- $ref := get .root.Values.secrets .cred -}}
- name: {{ .env }}
  valueFrom:
    secretKeyRef:
      name: {{ default (include "tieout.credentialsSecret" .root) $ref.name }}
      key: {{ $ref.key }}
{{- end -}}

{{- define "tieout.kafkaSasl" -}}
{{- if hasPrefix "SASL_" .Values.kafka.securityProtocol -}}true{{- end -}}
{{- end -}}

{{- define "tieout.kafkaTls" -}}
{{- if has .Values.kafka.securityProtocol (list "SSL" "SASL_SSL") -}}true{{- end -}}
{{- end -}}

{{/* A vLLM tier's in-cluster base URL. */}}
{{- define "tieout.vllmUrl" -}}
{{- $v := get .root.Values.vllm .tier -}}
{{- printf "http://%s-vllm-%s:%v/v1" (include "tieout.fullname" .root) .tier ((fromYaml $v.serveConfig).port | int) -}}
{{- end -}}

{{/* MODEL_<TIER>_URL: the value, else the chart's own vLLM tier, else none. */}}
{{- define "tieout.modelUrl" -}}
{{- $m := get .root.Values.model .tier -}}
{{- $v := get .root.Values.vllm .tier -}}
{{- if $m.url -}}
{{- $m.url -}}
{{- else if and .root.Values.vllm.enabled $v.enabled -}}
{{- include "tieout.vllmUrl" . -}}
{{- end -}}
{{- end -}}

{{- define "tieout.modelName" -}}
{{- $m := get .root.Values.model .tier -}}
{{- $v := get .root.Values.vllm .tier -}}
{{- if $m.name -}}
{{- $m.name -}}
{{- else if and .root.Values.vllm.enabled $v.enabled (not $m.url) -}}
{{- get (fromYaml $v.serveConfig) "served-model-name" -}}
{{- end -}}
{{- end -}}

{{/* Checks that make a bad combination of values fail at render time with a clear message. */}}
{{- define "tieout.validate" -}}
{{- $budget := include "tieout.processingBudget" . | int -}}
{{- if ge (int .Values.model.deadlineSeconds) $budget -}}
{{- fail (printf "model.deadlineSeconds (%v) must be below the processing budget processing.documentTimeoutSeconds + 60 (%d): the verify consumer would lose its message's budget to the model stage" .Values.model.deadlineSeconds $budget) -}}
{{- end -}}
{{- range $stage := list "parse" "verify" "sink" -}}
{{- $s := get $.Values.stages $stage -}}
{{- $topic := include "tieout.inputTopic" $stage -}}
{{- $partitions := (get $.Values.topics $topic).partitions | int -}}
{{- if gt (int $s.autoscaling.maxReplicas) $partitions -}}
{{- fail (printf "stages.%s.autoscaling.maxReplicas (%v) exceeds topics.%s.partitions (%d): replicas beyond the input topic's partitions would idle" $stage $s.autoscaling.maxReplicas $topic $partitions) -}}
{{- end -}}
{{- if gt (int $s.autoscaling.minReplicas) (int $s.autoscaling.maxReplicas) -}}
{{- fail (printf "stages.%s.autoscaling.minReplicas (%v) exceeds maxReplicas (%v)" $stage $s.autoscaling.minReplicas $s.autoscaling.maxReplicas) -}}
{{- end -}}
{{- if lt (int $s.autoscaling.lagThreshold) 1 -}}
{{- fail (printf "stages.%s.autoscaling.lagThreshold must be at least 1" $stage) -}}
{{- end -}}
{{- end -}}
{{- if and .Values.console.enabled (not .Values.database.enabled) -}}
{{- fail "console.enabled needs database.enabled: the console serves the services' results from PostgreSQL" -}}
{{- end -}}
{{- if not (has .Values.kafka.securityProtocol (list "PLAINTEXT" "SSL" "SASL_PLAINTEXT" "SASL_SSL")) -}}
{{- fail (printf "kafka.securityProtocol %q: choose PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL" .Values.kafka.securityProtocol) -}}
{{- end -}}
{{- if and .Values.secrets.values (not .Values.secrets.create) -}}
{{- fail "secrets.values is set but secrets.create is false: the chart would ignore them (set secrets.create=true, or put them in your own Secret)" -}}
{{- end -}}
{{- end -}}

{{/* The credentials the rendered pods read, by the features the values turn on. */}}
{{- define "tieout.neededCredentials" -}}
{{- $c := list "s3AccessKey" "s3SecretKey" -}}
{{- if include "tieout.kafkaSasl" . -}}{{- $c = concat $c (list "kafkaUsername" "kafkaPassword") -}}{{- end -}}
{{- if .Values.database.enabled -}}{{- $c = append $c "pgDsn" -}}{{- end -}}
{{- if .Values.model.apiKey.enabled -}}{{- $c = append $c "modelApiKey" -}}{{- end -}}
{{- if and .Values.vllm.enabled .Values.vllm.hfToken -}}{{- $c = append $c "hfToken" -}}{{- end -}}
{{- if .Values.console.enabled -}}{{- $c = concat $c (list "consoleUsers" "consoleSessionSecret") -}}{{- end -}}
{{- join "," $c -}}
{{- end -}}

{{/* Environment of every tieout container: plain settings from the ConfigMap, credentials from Secrets. */}}
{{- define "tieout.env" -}}
envFrom:
  - configMapRef:
      name: {{ include "tieout.fullname" .root }}-env
env:
  {{- include "tieout.secretEnv" (dict "root" .root "env" "S3_ACCESS_KEY" "cred" "s3AccessKey") | nindent 2 }}
  {{- include "tieout.secretEnv" (dict "root" .root "env" "S3_SECRET_KEY" "cred" "s3SecretKey") | nindent 2 }}
  {{- if include "tieout.kafkaSasl" .root }}
  {{- include "tieout.secretEnv" (dict "root" .root "env" "KAFKA_USERNAME" "cred" "kafkaUsername") | nindent 2 }}
  {{- include "tieout.secretEnv" (dict "root" .root "env" "KAFKA_PASSWORD" "cred" "kafkaPassword") | nindent 2 }}
  {{- end }}
  {{- if and .root.Values.database.enabled (has .component (list "sink" "console")) }}
  {{- include "tieout.secretEnv" (dict "root" .root "env" "PG_DSN" "cred" "pgDsn") | nindent 2 }}
  {{- end }}
  {{- if and .root.Values.model.apiKey.enabled (eq .component "verify") }}
  {{- include "tieout.secretEnv" (dict "root" .root "env" "MODEL_API_KEY" "cred" "modelApiKey") | nindent 2 }}
  {{- end }}
{{- end -}}

{{/* Pod annotations that roll the pods when their configuration or the chart's own Secret changes. */}}
{{- define "tieout.checksums" -}}
checksum/config: {{ include (print .Template.BasePath "/configmap.yaml") . | sha256sum }}
{{- if .Values.secrets.create }}
checksum/secret: {{ include (print .Template.BasePath "/secret.yaml") . | sha256sum }}
{{- end }}
{{- end -}}
