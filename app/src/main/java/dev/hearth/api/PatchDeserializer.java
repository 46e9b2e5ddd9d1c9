package dev.hearth.api;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.BeanProperty;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.deser.ContextualDeserializer;
import java.io.IOException;

/**
 * Binds a {@link Patch}: a missing field is {@link Patch.Keep} (Jackson asks a creator's absent
 * property for {@link #getAbsentValue}), JSON null is {@link Patch.Clear}, anything else is read
 * as the value's own type, with that type's errors.
 */
public final class PatchDeserializer extends JsonDeserializer<Patch<?>> implements ContextualDeserializer {
    private final JavaType valueType;

    public PatchDeserializer() {
        this(null);
    }

    private PatchDeserializer(JavaType valueType) {
        this.valueType = valueType;
    }

    @Override
    public JsonDeserializer<?> createContextual(DeserializationContext ctxt, BeanProperty property) {
        JavaType type = property != null ? property.getType() : ctxt.getContextualType();
        return new PatchDeserializer(type.containedTypeOrUnknown(0));
    }

    @Override
    public Patch<?> deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
        return Patch.set(ctxt.readValue(p, valueType));
    }

    @Override
    public Patch<?> getNullValue(DeserializationContext ctxt) {
        return Patch.clear();
    }

    @Override
    public Object getAbsentValue(DeserializationContext ctxt) {
        return Patch.keep();
    }
}
