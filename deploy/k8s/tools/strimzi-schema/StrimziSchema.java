import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import com.fasterxml.jackson.databind.BeanDescription;
import com.fasterxml.jackson.databind.DeserializationConfig;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.introspect.BeanPropertyDefinition;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.File;
import java.lang.reflect.Modifier;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;
import java.util.TreeMap;

/**
 * Derives JSON schemas for Strimzi custom resources from Strimzi's published API model
 * (io.strimzi:api on Maven Central), the same Jackson-annotated classes Strimzi generates its
 * CRDs from. Strimzi publishes the CRD YAML only as release assets outside the package
 * registries; this keeps manifest validation offline and registry-only.
 *
 * Like Strimzi's own generator, a polymorphic type (for example storage, listener
 * authentication, logging) becomes one object with the union of its subtypes' properties and a
 * `type` enum; unknown properties are refused, as the API server's structural schema would prune
 * them. Constraints Strimzi expresses with its own annotations (minimum, pattern) are not
 * available at run time and are not checked.
 *
 * Usage: java -cp <classpath> StrimziSchema.java <output-dir>
 */
public class StrimziSchema {
    private static final String GROUP = "kafka.strimzi.io";
    private static final String VERSION = "v1beta2";
    private static final Map<String, String> RESOURCES = new TreeMap<>(Map.of(
            "Kafka", "io.strimzi.api.kafka.model.kafka.Kafka",
            "KafkaNodePool", "io.strimzi.api.kafka.model.nodepool.KafkaNodePool",
            "KafkaTopic", "io.strimzi.api.kafka.model.topic.KafkaTopic",
            "KafkaUser", "io.strimzi.api.kafka.model.user.KafkaUser"));

    private final ObjectMapper mapper = new ObjectMapper();
    private final DeserializationConfig config = mapper.getDeserializationConfig();
    private final Deque<Class<?>> path = new ArrayDeque<>();

    public static void main(String[] args) throws Exception {
        if (args.length != 1) throw new IllegalArgumentException("usage: StrimziSchema <output-dir>");
        File dir = new File(args[0], GROUP);
        if (!dir.isDirectory() && !dir.mkdirs()) throw new IllegalStateException("cannot create " + dir);
        StrimziSchema generator = new StrimziSchema();
        for (Map.Entry<String, String> resource : RESOURCES.entrySet()) {
            ObjectNode schema = generator.resource(resource.getKey(), Class.forName(resource.getValue()));
            File out = new File(dir, resource.getKey().toLowerCase() + "_" + VERSION + ".json");
            generator.mapper.enable(SerializationFeature.INDENT_OUTPUT).writeValue(out, schema);
            System.out.println("wrote " + out);
        }
    }

    private ObjectNode resource(String kind, Class<?> cls) throws Exception {
        ObjectNode schema = mapper.createObjectNode();
        schema.put("type", "object");
        ObjectNode props = schema.putObject("properties");
        props.putObject("apiVersion").put("type", "string").putArray("enum").add(GROUP + "/" + VERSION);
        props.putObject("kind").put("type", "string").putArray("enum").add(kind);
        props.putObject("metadata").put("type", "object");
        props.set("spec", schemaOf(mapper.constructType(cls.getMethod("getSpec").getGenericReturnType())));
        props.putObject("status").put("type", "object");
        schema.putArray("required").add("apiVersion").add("kind").add("metadata").add("spec");
        schema.put("additionalProperties", false);
        return schema;
    }

    private ObjectNode schemaOf(JavaType type) {
        Class<?> raw = type.getRawClass();
        ObjectNode schema = mapper.createObjectNode();
        if (raw == String.class || raw == Character.class || raw == char.class) return schema.put("type", "string");
        if (raw == Boolean.class || raw == boolean.class) return schema.put("type", "boolean");
        if (raw == Integer.class || raw == int.class || raw == Long.class || raw == long.class
                || raw == Short.class || raw == short.class) return schema.put("type", "integer");
        if (Number.class.isAssignableFrom(raw) || raw == double.class || raw == float.class) return schema.put("type", "number");
        if (raw.getName().equals("io.fabric8.kubernetes.api.model.Quantity")
                || raw.getName().equals("io.fabric8.kubernetes.api.model.IntOrString")) {
            ArrayNode anyOf = schema.putArray("anyOf");
            anyOf.addObject().put("type", "integer");
            anyOf.addObject().put("type", "string");
            return schema.put("x-kubernetes-int-or-string", true);
        }
        if (raw.isEnum()) {
            ArrayNode values = schema.put("type", "string").putArray("enum");
            for (Object constant : raw.getEnumConstants()) {
                try {
                    values.add(mapper.writeValueAsString(constant).replaceAll("^\"|\"$", ""));
                } catch (Exception e) {
                    throw new IllegalStateException("enum " + raw.getName(), e);
                }
            }
            return schema;
        }
        if (type.isArrayType() || type.isCollectionLikeType()) {
            schema.put("type", "array");
            schema.set("items", schemaOf(type.getContentType()));
            return schema;
        }
        if (type.isMapLikeType()) {
            schema.put("type", "object");
            JavaType value = type.getContentType();
            // Free-form maps (Kafka broker config, labels of arbitrary values) accept any value.
            if (value.getRawClass() != Object.class) schema.set("additionalProperties", schemaOf(value));
            return schema;
        }
        if (raw == Object.class || raw.getName().startsWith("com.fasterxml.jackson.databind.")) return schema;
        if (path.contains(raw) || path.size() > 40) return schema.put("type", "object");

        path.push(raw);
        try {
            schema.put("type", "object");
            ObjectNode props = schema.putObject("properties");
            ArrayNode required = mapper.createArrayNode();
            JsonSubTypes subTypes = raw.getAnnotation(JsonSubTypes.class);
            JsonTypeInfo typeInfo = raw.getAnnotation(JsonTypeInfo.class);
            if (subTypes != null && typeInfo != null) {
                ArrayNode names = mapper.createArrayNode();
                for (JsonSubTypes.Type sub : subTypes.value()) {
                    names.add(sub.name());
                    addProperties(mapper.constructType(sub.value()), props, null);
                }
                ObjectNode discriminator = props.putObject(typeInfo.property());
                discriminator.put("type", "string").set("enum", names);
                required.add(typeInfo.property());
            } else if (Modifier.isAbstract(raw.getModifiers()) && !raw.isInterface()) {
                addProperties(type, props, required);
            } else {
                addProperties(type, props, required);
            }
            if (!required.isEmpty()) schema.set("required", required);
            schema.put("additionalProperties", false);
            return schema;
        } finally {
            path.pop();
        }
    }

    private void addProperties(JavaType type, ObjectNode props, ArrayNode required) {
        BeanDescription description = config.introspect(type);
        for (BeanPropertyDefinition property : description.findProperties()) {
            if (!property.couldDeserialize() || props.has(property.getName())) continue;
            props.set(property.getName(), schemaOf(property.getPrimaryType()));
            if (required != null && property.isRequired()) required.add(property.getName());
        }
    }
}
